// A phase's record, made from what the runner measured: the phase's plan (its loads), the
// counters read when its window opened and closed, the loads' stop, an external program's end
// and metric, and, over the rounds, the summary. The runner (init/experiment.cpp) starts,
// measures and stops; this file only writes down.
#pragma once

#include "common/config.h"
#include "init/background.h"
#include "init/console.h"
#include "init/phase_plan.h"
#include "payload/core/external.h"
#include "payload/core/load.h"
#include "payload/core/leftover_tasks.h"
#include "payload/core/load_group.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

// How an external load's program and setup went in one phase, for its record.
struct ProgramRun {
    std::unique_ptr<Background> setup;
    bool ended = false;    // on its own, before the runner gave up waiting
    bool timed = false;    // load.NAME.window=program: the window was its run
    double window_end = 0; // when the phase's window closed (monotonic seconds)
    double window_s = 0;   // how long it was open
};

// The counters a phase reads when its window opens and when it closes.
struct Snapshot {
    double t = 0;
    uint64_t ops = 0, failures = 0;
    std::vector<WorkerMark> per_worker;
    std::optional<CpuTime> cpu;
    std::optional<uint64_t> forks, limit_hits, oom_kills, memory_peak;
};

// Now, for one load's group (none: the kernel's counters only).
Snapshot snapshot(const LoadGroup* group);

// What one phase's window saw: the snapshots at its edges (one per load) and the samples
// taken inside it.
struct Window {
    double interval = 0;              // between samples
    std::vector<Snapshot> open, close; // per load; empty for "none"
    Snapshot first_open, first_close;  // the first load's (or the kernel's): the window's times
    std::vector<nlohmann::json> ops_per_s; // per load (one array of zeros for "none")
    nlohmann::json tasks = nlohmann::json::array(); // every load's tasks, per sample
    uint64_t peak_tasks = 0;
    double seconds() const { return first_close.t - first_open.t; }
};

// Everything one phase ran and measured, from its start to its stop.
struct PhaseRun {
    std::vector<ProgramRun> programs; // per load
    std::vector<std::unique_ptr<LoadGroup>> groups;
    uint64_t memory_mb = 0; // each load's cgroup's memory.max
    double warmup = 0;
    Window window;
    std::vector<StopReport> stopped; // per load
    LeftoverTasks leftover;
    nlohmann::json early_exits = nlohmann::json::array();
};

nlohmann::json metric(double value, std::string unit, std::string agg, std::string better);

// A load that did no operation in its window has a rate of 0, over which no mean of rounds
// can be taken: the warning that says why, or "" when it did some. `cpu_s` is the load's CPU
// time in the window, when a cgroup counted it: none at all means its tasks only waited or
// never ran (a machine that held them off), some that they ran and finished nothing
// (operations longer than the window).
std::string idle_window_warning(uint64_t ops, std::optional<double> cpu_s, double window_s,
                                std::string_view op_unit);

class PhaseRecorder {
public:
    PhaseRecorder(const Config& config, Console& console, const LoadOptions& options)
        : config_(config), console_(console), options_(options) {}

    // The record's head: type, phase, round and its load(s), as a phase begins.
    nlohmann::json head(const PhasePlan& phase, uint64_t round) const;
    // What the phase measured, into the record that head() began.
    void add_results(nlohmann::json& rec, const PhasePlan& phase, const PhaseRun& run) const;

    // Each metric of a load phase, over the rounds; with two rounds or more, the summary
    // record of them aggregated.
    void remember_for_summary(const PhasePlan& phase, const nlohmann::json& rec);
    void emit_summary();

private:
    nlohmann::json load_json(const PhaseLoad& part) const;
    void add_load_results(nlohmann::json& rec, const std::string& phase_name, const PhaseLoad& part,
                          const LoadGroup& group, const Snapshot& s0, const Snapshot& s1,
                          const StopReport& stopped, double window_s, uint64_t memory_mb) const;
    void add_program_results(nlohmann::json& rec, const std::string& phase_name, const PhaseLoad& part,
                             const LoadGroup& group, const ProgramRun& run) const;

    const Config& config_;
    Console& console_;
    const LoadOptions& options_;
    std::vector<nlohmann::json> summary_;
};

// A program that did not end by itself is waited for after the window this long at least
// (and at least the phase's duration): under TCG a program's own start and end take seconds.
inline constexpr double kProgramEndGrace = 10;

} // namespace initbench
