// What the BPF probes cost while they measure. With BPF statistics on, the kernel counts
// each program's runs and the time spent in them (bpf_prog_info's run_cnt and run_time_ns):
// the runner reads them when a phase's window opens and when it closes, and each probe
// record gets its "cost" (runs, ns, ns per run, share of the window's CPU time), the end
// record the total per phase. The time is the programs' own, between two clock reads; the
// trampoline's or kprobe's entry and exit around them, and the two clock reads themselves,
// are not in it.
#pragma once

#include "bpf/core/probe.h"
#include "bpf/core/window_cost.h"
#include "common/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

struct bpf_object;

namespace initbench {

// The kernel's BPF run statistics, on for the object's lifetime: BPF_ENABLE_STATS (Linux
// 5.8), which ends with its file descriptor, else the sysctl kernel.bpf_stats_enabled
// (Linux 5.1), set back when done. reason() says why they are off.
class BpfRunStats {
public:
    explicit BpfRunStats(bool wanted);
    ~BpfRunStats();
    BpfRunStats(const BpfRunStats&) = delete;
    BpfRunStats& operator=(const BpfRunStats&) = delete;
    bool on() const { return reason_.empty(); }
    const std::string& reason() const { return reason_; }
    const std::string& method() const { return method_; }

private:
    int fd_ = -1;
    std::string restore_; // the sysctl's value before, when it was set here
    std::string method_, reason_;
};

// Every loaded program of the objects, in order; an error when the kernel's bpf_prog_info
// has no run counters (before Linux 5.1).
Result<std::vector<ProgramRuns>> program_runs(const std::vector<const bpf_object*>& objects);

// The window's counters of every probe that runs BPF programs (Probe::bpf_objects()).
class ProbeCosts {
public:
    explicit ProbeCosts(bool wanted) : stats_(wanted) {}
    void open(const std::vector<std::unique_ptr<Probe>>& probes); // the window opens
    // The window closes; it lasted window_s (on every online CPU, for the CPU share).
    void close(const std::vector<std::unique_ptr<Probe>>& probes, const std::string& phase,
               double window_s);
    // Probe i's "cost" and its metrics into its record (a probe without programs, or one
    // that is not supported, gets none); the phase's total adds it.
    void add(size_t i, nlohmann::json& record, const std::string& phase);
    // The end record's: each phase's total over its probes and rounds, or why none.
    nlohmann::json totals() const;

private:
    struct Window {
        bool runs_programs = false;
        Result<std::vector<ProgramRuns>> first = Error{"the window was never opened"};
        Result<std::vector<ProgramRuns>> last = Error{"the window was never closed"};
    };
    struct Total {
        uint64_t runs = 0, ns = 0;
        double cpu_s = 0; // the windows' CPU time, all CPUs
    };
    BpfRunStats stats_;
    std::vector<Window> windows_;
    double window_s_ = 0;
    std::map<std::string, Total> totals_;
    std::vector<std::string> phase_order_;
};

} // namespace initbench
