#include "init/phase_record.h"

#include "common/statistics.h"
#include "common/text.h"
#include "sys/procfs.h"

#include <algorithm>
#include <cmath>
#include <sys/wait.h>

namespace initbench {
namespace {

// A program in a fixed window that ends more than this share of the window before or after
// it is warned about (load.NAME.window=program measures its run instead).
constexpr double kProgramWindowSlack = 0.1;
// The tail of an external program's output that its phase record keeps.
constexpr size_t kProgramOutputTail = 2048;

nlohmann::json or_null(const std::optional<uint64_t>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json delta(const std::optional<uint64_t>& a, const std::optional<uint64_t>& b) {
    return a && b ? nlohmann::json(*b - *a) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json metric(double value, std::string unit, std::string agg, std::string better) {
    return {{"value", value},
            {"unit", std::move(unit)},
            {"agg", std::move(agg)},
            {"better", std::move(better)}};
}

Snapshot snapshot(const LoadGroup* group) {
    Snapshot s;
    s.t = monotonic_seconds();
    // "processes" counts every fork and clone since boot: the kernel's count of tasks made.
    if (auto stat = read_file("/proc/stat"))
        s.forks = keyed_value(stat.value(), "processes");
    if (!group)
        return s;
    s.per_worker = group->marks(); // one read: ops is their sum, as the record's ops_per_worker
    for (const WorkerMark& m : s.per_worker)
        s.ops += m.ops;
    s.failures = group->failures();
    s.cpu = group->cgroup_cpu();
    s.limit_hits = group->cgroup_event("pids.events", "max");
    s.oom_kills = group->cgroup_event("memory.events", "oom_kill");
    s.memory_peak = group->cgroup_value("memory.peak");
    return s;
}


nlohmann::json PhaseRecorder::head(const PhasePlan& phase, uint64_t round) const {
    nlohmann::json rec{{"type", "phase"}, {"phase", phase.name}, {"round", round}};
    if (phase.joined()) {
        rec["loads"] = nlohmann::json::array();
        for (const auto& part : phase.loads)
            rec["loads"].push_back(load_json(part));
    } else if (!phase.loads.empty()) {
        rec["load"] = load_json(phase.loads.front());
    }
    return rec;
}

void PhaseRecorder::add_results(nlohmann::json& rec, const PhasePlan& phase, const PhaseRun& run) const {
    const Window& w = run.window;
    const double elapsed = w.seconds();
    const unsigned leftover = run.leftover.count;
    rec["duration_s"] = elapsed;
    rec["warmup_s"] = run.warmup;
    rec["tasks"] = {{"created", delta(w.first_open.forks, w.first_close.forks)}, {"leftover", leftover}};
    if (leftover) {
        nlohmann::json states = nlohmann::json::object();
        for (const auto& [state, n] : run.leftover.states)
            states[std::string(1, state)] = n;
        rec["tasks"]["leftover_states"] = states;
        console_.warning("phase " + phase.name, std::to_string(leftover) + " tasks are left after the phase's stop: " +
                                                    describe_leftovers(run.leftover));
    }
    const auto& groups = run.groups;
    if (groups.empty())
        return;
    if (!phase.joined()) {
        add_load_results(rec, phase.name, phase.loads.front(), *groups.front(), w.open.front(), w.close.front(),
                         run.stopped.front(), elapsed, run.memory_mb);
        rec["samples"] = {{"interval_s", w.interval}, {"ops_per_s", w.ops_per_s.front()}};
        if (phase.loads.front().external) {
            add_program_results(rec, phase.name, phase.loads.front(), *groups.front(), run.programs.front());
            rec["samples"].erase("ops_per_s"); // the program's work is its own to count
        }
    } else {
        // Each load's numbers in "loads"; its metrics also at the top as LOAD.METRIC, where
        // compare and the summary find every metric of a phase.
        rec["metrics"] = nlohmann::json::object();
        rec["samples"] = {{"interval_s", w.interval}};
        unsigned reaped = 0, running = 0;
        double stop_s = 0;
        for (size_t i = 0; i < groups.size(); i++) {
            auto& entry = rec["loads"][i];
            entry["tasks"] = nlohmann::json::object();
            add_load_results(entry, phase.name, phase.loads[i], *groups[i], w.open[i], w.close[i], run.stopped[i],
                             elapsed, run.memory_mb);
            if (phase.loads[i].external)
                add_program_results(entry, phase.name, phase.loads[i], *groups[i], run.programs[i]);
            const std::string name(phase.loads[i].load->name());
            for (const auto& [metric_name, m] : entry["metrics"].items())
                rec["metrics"][name + "." + metric_name] = m;
            if (!phase.loads[i].external)
                rec["samples"][name + ".ops_per_s"] = w.ops_per_s[i];
            reaped += run.stopped[i].reaped;
            running += run.stopped[i].left;
            stop_s += run.stopped[i].seconds;
        }
        rec["tasks"]["reaped"] = reaped;
        rec["tasks"]["running_after_stop"] = running;
        rec["stop_s"] = stop_s;
    }
    if (!w.tasks.empty()) {
        rec["samples"]["tasks"] = w.tasks;
        rec["tasks"]["peak_sampled"] = w.peak_tasks;
    }
    if (!run.early_exits.empty())
        rec["early_exits"] = run.early_exits;
}

nlohmann::json PhaseRecorder::load_json(const PhaseLoad& part) const {
    nlohmann::json j{{"name", part.load->name()},
                     {"op_unit", part.load->op_unit()},
                     {"params", params_json(part.params)}};
    if (part.sweep_value) // "tcp.clients", "load.NAME.clients" -> "clients": 4
        j[std::string(part.load->sweep().substr(part.load->sweep().rfind('.') + 1))] =
            part.sweep_value;
    if (!options_.cpus.empty())
        j["cpus"] = options_.cpus;
    if (options_.nice)
        j["nice"] = options_.nice;
    return j;
}

std::string idle_window_warning(uint64_t ops, std::optional<double> cpu_s, double window_s,
                                std::string_view op_unit) {
    if (ops)
        return "";
    std::string why = "no " + std::string(op_unit) + " in the " + format_number(window_s, "%.3g") +
                      " s window, so its rate is 0 and the rounds have no mean";
    if (!cpu_s)
        return why;
    if (*cpu_s <= 0)
        return why +
               ": the load's tasks had no CPU time in it, so they only waited or never ran (a "
               "machine that held them off, e.g. a starved virtual CPU)";
    return why + ": the load's tasks ran for " + format_number(*cpu_s, "%.3g") +
           " s of CPU and finished none (operations longer than the window?)";
}

// One load's numbers over the window, into `rec`: the phase record for a single load,
// or the load's entry in "loads".
void PhaseRecorder::add_load_results(nlohmann::json& rec, const std::string& phase_name, const PhaseLoad& part,
                                     const LoadGroup& group, const Snapshot& s0, const Snapshot& s1,
                                     const StopReport& stopped, double window_s, uint64_t memory_mb) const {
    const double elapsed = std::max(window_s, 1e-9);
    const uint64_t ops = s1.ops - s0.ops;
    const double rate = ops_per_second(s0.per_worker, s1.per_worker, elapsed);
    const std::string unit = std::string(part.load->op_unit()) + "/s";
    std::vector<uint64_t> per_worker;
    for (size_t i = 0; i < s1.per_worker.size(); i++)
        per_worker.push_back(s1.per_worker[i].ops - s0.per_worker[i].ops);
    rec["ops"] = ops;
    rec["ops_per_worker"] = per_worker;
    rec["ops_span_s"] = op_spans(s0.per_worker, s1.per_worker, elapsed);
    rec["metrics"] = {
        {"ops_per_s", metric(rate, unit, "hmean", "higher")},
        {"ops_per_s_per_worker", metric(rate / part.params.workers, unit, "hmean", "higher")}};
    if (part.load->bytes_per_op)
        rec["metrics"]["mb_per_s"] = metric(rate * double(part.load->bytes_per_op(part.params)) / 1e6,
                                            "MB/s", "hmean", "higher");
    // The window's CPU time from the cgroup; without one, start to stop by getrusage.
    if (s0.cpu && s1.cpu)
        rec["cpu"] = {{"user_s", s1.cpu->user_s - s0.cpu->user_s},
                      {"sys_s", s1.cpu->sys_s - s0.cpu->sys_s},
                      {"source", "cgroup cpu.stat, measured window"}};
    else
        rec["cpu"] = {{"user_s", stopped.cpu.user_s},
                      {"sys_s", stopped.cpu.sys_s},
                      {"source", "getrusage, start to stop"}};
    rec["tasks"]["reaped"] = stopped.reaped;
    rec["tasks"]["running_after_stop"] = stopped.left;
    rec["stop_s"] = stopped.seconds;
    if (s1.memory_peak) // since the phase's cgroup was made (memory.peak: Linux 5.19)
        rec["memory_peak_mb"] = double(*s1.memory_peak) / (1 << 20);
    rec["cgroup"] = group.cgroup();
    // The slots and the cgroup are the phase's own: these count from its start on.
    rec["failures"] = {{"task_create", s1.failures},
                       {"task_limit_hits", or_null(s1.limit_hits)},
                       {"oom_kills", or_null(s1.oom_kills)}};
    // A program counts no operations (add_program_results takes its own figures instead). The
    // CPU time is the window's (the cgroup's), never getrusage's start to stop.
    if (!part.external) {
        std::optional<double> cpu_s;
        if (s0.cpu && s1.cpu)
            cpu_s = s1.cpu->user_s - s0.cpu->user_s + s1.cpu->sys_s - s0.cpu->sys_s;
        if (auto idle = idle_window_warning(ops, cpu_s, window_s, part.load->op_unit());
            !idle.empty())
            console_.warning("phase " + phase_name, idle);
    }
    if (s1.failures)
        console_.warning("phase " + phase_name, "the kernel refused " +
                                                    std::to_string(s1.failures) +
                                                    " task creations (limit.tasks " +
                                                    std::to_string(options_.tasks_max) + ")");
    if (s1.oom_kills.value_or(0))
        console_.warning("phase " + phase_name,
                         std::to_string(*s1.oom_kills) +
                             " tasks of the load were killed at its memory "
                             "limit (limit.memory_mb " +
                             std::to_string(memory_mb) + ")");
    if (config_.seconds("churn") > 0)
        rec["churn"] = {{"period_s", config_.seconds("churn")}, {"respawns", group.respawns()}};
}

// An external load's numbers: the program's end, its output's tail and the metric taken
// from it replace the operation counts, which a program does not give. A program that
// failed, or a metric not found, is an error record beside the phase record.
void PhaseRecorder::add_program_results(nlohmann::json& rec, const std::string& phase_name, const PhaseLoad& part,
                                        const LoadGroup& group, const ProgramRun& run) const {
    const std::string key = "load." + part.external->name;
    for (const char* field : {"ops", "ops_per_worker", "ops_span_s"})
        rec.erase(field);
    rec["metrics"] = nlohmann::json::object();
    const ExternalParams& own = *external_params_of(part.params);
    const std::string output = read_file(own.output_path, 64 << 20).value_or("");
    nlohmann::json program{{"command", join(own.argv, " ")},
                           {"output_bytes", output.size()},
                           {"output_tail", output_tail(output, kProgramOutputTail)}};
    const auto status = group.exit_status(0);
    std::string failure;
    if (!run.ended) {
        failure = "did not end within " + format_number(std::max(kProgramEndGrace, config_.seconds("duration"))) +
                  " s after the window, and was killed";
        program["ended"] = failure;
    } else if (status) {
        program["ended"] = describe_exit(*status);
        program[WIFSIGNALED(*status) ? "signal" : "exit"] =
            WIFSIGNALED(*status) ? WTERMSIG(*status) : WEXITSTATUS(*status);
        if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0)
            failure = describe_exit(*status);
    }
    program["window"] = run.timed ? "program" : "fixed";
    if (run.timed) {
        // The window was the run: its length is the program's own figure of time.
        if (run.ended && failure.empty())
            rec["metrics"]["run_s"] = metric(run.window_s, "s", "amean", "lower");
    } else if (const auto ended_at = group.ended_at(0); ended_at && failure.empty()) {
        // A fixed-work program run in a fixed window: the probes, counters and CPU time
        // cover the window, and the program's figure its own run. Say so when they differ.
        const double off = *ended_at - run.window_end, window = run.window_s;
        program["end_vs_window_s"] = off;
        if (std::fabs(off) > kProgramWindowSlack * window)
            console_.warning("phase " + phase_name,
                             "'" + program["command"].get<std::string>() + "' " +
                                 (off < 0 ? "ended " + format_number(-off, "%.2f") + " s before its window closed"
                                          : "ran " + format_number(off, "%.2f") + " s past its window") +
                                 " (" + format_number(window, "%.2f") +
                                 " s): the probes, counters and CPU time cover the window, not the program's run; " +
                                 key + ".window=program makes them one");
    }
    if (!failure.empty()) {
        std::string last;
        for (auto line : split_lines(output))
            if (!trim(line).empty())
                last = std::string(trim(line).substr(0, 200));
        console_.error("phase " + phase_name,
                       "'" + program["command"].get<std::string>() + "' " + failure +
                           (last.empty() ? "" : "; its last line: " + last),
                       key);
    }
    rec["program"] = std::move(program);
    if (run.setup)
        rec["setup"] = {{"command", part.setup},
                        {"ready_s", run.setup->ready_s() >= 0 ? nlohmann::json(run.setup->ready_s())
                                                              : nlohmann::json(nullptr)}};
    const std::string regex = config_.str(key + ".metric");
    if (regex.empty() || !failure.empty())
        return;
    std::string why;
    if (auto value = find_metric(output, regex, why))
        rec["metrics"]["result"] = metric(*value, config_.str(key + ".unit"), config_.str(key + ".agg"),
                                          config_.str(key + ".better"));
    else
        console_.error("phase " + phase_name, why, key + ".metric");
}

// Each metric of a load phase, over the rounds, for the summary record.
void PhaseRecorder::remember_for_summary(const PhasePlan& phase, const nlohmann::json& rec) {
    auto it = std::find_if(summary_.begin(), summary_.end(),
                           [&](const nlohmann::json& s) { return s["phase"] == phase.name; });
    if (it == summary_.end()) {
        nlohmann::json s{{"phase", phase.name}, {"metrics", nlohmann::json::object()}};
        if (phase.joined()) {
            s["loads"] = nlohmann::json::array();
            for (const auto& part : phase.loads)
                s["loads"].push_back(load_json(part));
        } else {
            s["load"] = rec["load"];
        }
        summary_.push_back(std::move(s));
        it = summary_.end() - 1;
    }
    for (const auto& [name, m] : rec["metrics"].items()) {
        auto& s = (*it)["metrics"][name];
        for (const char* k : {"unit", "agg", "better"})
            s[k] = m[k];
        s["rounds"].push_back(m["value"]);
    }
}

// With several rounds: every load phase's metrics aggregated over the rounds.
void PhaseRecorder::emit_summary() {
    if (config_.uint("rounds") < 2 || summary_.empty())
        return;
    for (auto& s : summary_)
        for (auto& [name, m] : s["metrics"].items()) {
            // A rate by harmonic mean, as its "agg" says; none for a round without operations.
            const auto rounds = m["rounds"].get<std::vector<double>>();
            auto value = aggregate(rounds, parse_agg(m["agg"].get<std::string>()));
            m["value"] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
        }
    console_.emit({{"type", "summary"}, {"phases", std::move(summary_)}});
    summary_.clear();
}

} // namespace initbench
