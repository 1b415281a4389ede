#include "init/experiment.h"

#include "bpf/core/probe.h"
#include "bpf/core/probe_cost.h"
#include "bpf/core/setup_times.h"
#include "bpf/span/span_samples.h"
#include "bpf/core/vmlinux_btf.h"
#include "common/perf_events.h"
#include "common/record_types.h"
#include "common/statistics.h"
#include "common/text.h"
#include "init/background.h"
#include "init/commands.h"
#include "payload/core/external.h"
#include "payload/core/load_group.h"
#include "sys/procfs.h"
#include "init/perf_counters.h"
#include "payload/core/load.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <csignal>
#include <optional>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

// A load's tasks get this long to set up (15 000 sleepers take seconds under TCG).
constexpr double kReadyTimeout = 120;
// An external program is waited for after the window this long at least (and at least the
// phase's duration): under TCG a program's own start and end take seconds.
constexpr double kProgramEndGrace = 10;
// How long the tasks a phase killed may take to end (and its orphans to be reaped) before
// those still there are reported as left over: at once on a quiet machine.
constexpr double kSettleS = 5;
// A program in a fixed window that ends more than this share of the window before or after
// it is warned about (load.NAME.window=program measures its run instead).
constexpr double kProgramWindowSlack = 0.1;
// The tail of an external program's output that its phase record keeps.
constexpr size_t kProgramOutputTail = 2048;

struct PhaseLoad {
    const LoadSpec* load = nullptr;
    LoadParams params;
    unsigned sweep_value = 0; // the value of the load's sweep key; 0 without one
    const ExternalLoad* external = nullptr; // an external load (load.NAME)
    std::string setup;                      // its setup command, placeholders replaced
};

// How an external load's program and setup went in one phase, for its record.
struct ProgramRun {
    std::unique_ptr<Background> setup;
    bool ended = false;        // on its own, before the runner gave up waiting
    bool timed = false;        // load.NAME.window=program: the window was its run
    double window_end = 0;     // when the phase's window closed (monotonic seconds)
    double window_s = 0;       // how long it was open
};

struct PhasePlan {
    std::string name; // "none", a load's name, LOAD-N for a sweep's value N, or LOAD+LOAD...
    // Empty for "none"; two or more for a joined phase, started together and measured in
    // one window.
    std::vector<PhaseLoad> loads;
    std::string unsupported; // why this kernel cannot run the load (or one of them)
    bool joined() const { return loads.size() > 1; }
};

nlohmann::json metric(double value, std::string unit, std::string agg, std::string better) {
    return {{"value", value},
            {"unit", std::move(unit)},
            {"agg", std::move(agg)},
            {"better", std::move(better)}};
}

// The counters a phase reads when its window opens and when it closes.
struct Snapshot {
    double t = 0;
    uint64_t ops = 0, failures = 0;
    std::vector<uint64_t> per_worker;
    std::optional<CpuTime> cpu;
    std::optional<uint64_t> forks, limit_hits, oom_kills, memory_peak;
};

Snapshot snapshot(const LoadGroup* group) {
    Snapshot s;
    s.t = monotonic_seconds();
    // "processes" counts every fork and clone since boot: the kernel's count of tasks made.
    if (auto stat = read_file("/proc/stat"))
        s.forks = keyed_value(stat.value(), "processes");
    if (!group)
        return s;
    s.ops = group->total_ops();
    s.failures = group->failures();
    s.per_worker = group->ops_per_worker();
    s.cpu = group->cgroup_cpu();
    s.limit_hits = group->cgroup_event("pids.events", "max");
    s.oom_kills = group->cgroup_event("memory.events", "oom_kill");
    s.memory_peak = group->cgroup_value("memory.peak");
    return s;
}

nlohmann::json or_null(const std::optional<uint64_t>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json delta(const std::optional<uint64_t>& a, const std::optional<uint64_t>& b) {
    return a && b ? nlohmann::json(*b - *a) : nlohmann::json(nullptr);
}

std::vector<std::unique_ptr<Probe>> make_probes(const Config& config) {
    std::vector<std::unique_ptr<Probe>> probes;
    for (const ProbeSpec* spec : probe_registry())
        spec->make(config, probes);
    setup_begin("perf");
    add_perf_counters(config, probes);
    setup_end();
    release_vmlinux_btf(); // the loads can have its memory
    return probes;
}

// "Ticks per grace period": a kthread's CPU ticks divided by the spans in the same phase.
void add_ticks_per_span(nlohmann::json& probe_results) {
    const nlohmann::json* span = nullptr;
    for (const auto& r : probe_results)
        if (r.value("probe", "") == "span" && r.value("count", 0) > 0)
            span = &r;
    if (!span)
        return;
    for (auto& r : probe_results) {
        if (r.value("probe", "") != "kthread")
            continue;
        RecordBuilder metrics(declared_type("probe", "kthread"), r);
        metrics.field("ticks_per_span", r.value("ticks", 0.0) / (*span)["count"].get<double>());
        // Per sampling interval, as the RCU seed's bench: stime ticks over the spans ended.
        const auto stime = r.value("/samples/stime"_json_pointer, std::vector<uint64_t>{});
        const auto counts = span->value("/samples/count"_json_pointer, std::vector<uint64_t>{});
        r["stime_per_span"] = per_span_in_intervals(stime, counts);
        metrics.metric("stime_per_span.avg", r["stime_per_span"].is_null()
                                                 ? nlohmann::json(nullptr)
                                                 : r["stime_per_span"]["avg"]);
    }
}

// Probes kept attached until the machine ends: PID 1 never returns from end_machine(), so
// these are never destroyed.
void park_until_power_off(std::vector<std::unique_ptr<Probe>> probes) {
    static std::vector<std::unique_ptr<Probe>> parked;
    for (auto& p : probes)
        parked.push_back(std::move(p));
}

class Runner {
public:
    Runner(const Config& config, Console& console, KmsgWatcher& kmsg)
        : config_(config), console_(console), kmsg_(kmsg) {}

    // A background payload: its tasks are not left behind by a phase, and it may want each
    // window marked.
    void set_background(Background* background) { background_ = background; }

    bool plan() {
        define_external_loads(config_);
        bool ok = plan_options();
        for (const auto& name : config_.list("phases")) {
            if (name == "none") {
                PhasePlan none;
                none.name = name;
                phases_.push_back(std::move(none));
                continue;
            }
            std::string why;
            const auto loads = phase_loads(name, why);
            if (loads.empty()) {
                console_.error("phases", why, "phases");
                ok = false;
                continue;
            }
            if (loads.size() > 1) { // no sweeps: phase_loads() refused them
                PhasePlan p;
                p.name = name;
                for (const LoadSpec* load : loads) {
                    p.loads.push_back(phase_load(*load, 0));
                    if (auto no = load->unsupported(); !no.empty() && p.unsupported.empty())
                        p.unsupported = std::string(load->name) + ": " + no;
                }
                if (within_task_limit(p))
                    phases_.push_back(std::move(p));
                else
                    ok = false;
                continue;
            }
            const LoadSpec* load = loads.front();
            for (unsigned v : sweep_values(*load, config_)) {
                PhasePlan p{load->sweep.empty() ? name : name + "-" + std::to_string(v),
                            {phase_load(*load, v)}, load->unsupported()};
                if (within_task_limit(p))
                    phases_.push_back(std::move(p));
                else
                    ok = false;
            }
        }
        return ok;
    }

    PhaseLoad phase_load(const LoadSpec& load, unsigned v) const {
        PhaseLoad part;
        part.load = &load;
        part.params = resolve_params(load, config_, v);
        part.sweep_value = v;
        if ((part.external = find_external(load))) {
            ExternalParams& program = *external_params_of(part.params);
            const std::string path = resolve_program(program.program);
            if (!path.empty()) // else the exec fails, and the phase says so
                program.program = path;
            program.env = {command_path_env(), "HOME=/root", "TERM=linux"};
            part.setup = substitute(config_.str("load." + part.external->name + ".setup"),
                                    external_values(config_, v));
        }
        return part;
    }

    // Each load's cgroup has its own pids.max: each load is checked against it.
    bool within_task_limit(const PhasePlan& p) {
        for (const auto& part : p.loads) {
            const std::string who = p.joined() ? std::string(part.load->name) + ": " : "";
            // Workers are forked by the init, outside the cgroup: pids.max cannot stop them.
            if (options_.tasks_max && part.params.workers > options_.tasks_max) {
                console_.error("phase " + p.name,
                               who + std::to_string(part.params.workers) +
                                   " workers exceed limit.tasks (" +
                                   std::to_string(options_.tasks_max) + ")",
                               "limit.tasks");
                return false;
            }
            const uint64_t tasks = part.load->tasks(part.params);
            if (options_.tasks_max && tasks > options_.tasks_max)
                console_.warning("phase " + p.name,
                                 who + "the load wants " + std::to_string(tasks) +
                                     " tasks at once but limit.tasks is " +
                                     std::to_string(options_.tasks_max) +
                                     ": task creations will fail at the limit");
        }
        return true;
    }

    bool run(ExperimentTimes& times) {
        const double t_probes = monotonic_seconds();
        times.probes_start = t_probes;
        // Set up as SCHED_OTHER, not the runner's FIFO: the first fentry attach waits for an
        // RCU Tasks grace period, and kernel threads that the FIFO runner kept from running
        // through ~0.1 s of BTF parsing then tend to be holdouts that add the grace period's
        // first 0.1 s poll (6.1 under TCG: attach 40-80 ms in 11 boots as OTHER, 140-170 ms
        // in 4 of 10 as FIFO).
        const int policy = static_cast<int>(::syscall(SYS_sched_getscheduler, 0));
        sched_param param{}, other{};
        ::syscall(SYS_sched_getparam, 0, &param);
        ::syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &other);
        probes_ = make_probes(config_);
        if (policy >= 0)
            ::syscall(SYS_sched_setscheduler, 0, policy, &param);
        times.probe_setup_s = monotonic_seconds() - t_probes;
        times.probe_setup = setup_times_json();
        costs_ = std::make_unique<ProbeCosts>(config_.flag("probe_cost"));
        bool ok = true;
        for (const auto& probe : probes_)
            if (auto error = probe->setup_error(); !error.empty()) {
                console_.error("probe " + probe->name(), error);
                ok = false; // the phases still run: the other probes' numbers are not lost
            } else if (!probe->supported()) {
                auto d = probe->describe();
                console_.warning("probe " + probe->name() + " " + d.value("function", ""), d.value("reason", ""));
            }
        const auto rounds = config_.uint("rounds");
        times.first_phase_start = monotonic_seconds();
        for (uint64_t round = 0; round < rounds; round++)
            for (const auto& phase : phases_)
                ok = run_phase(phase, round) && ok;
        times.last_phase_end = monotonic_seconds();
        if (!probes_.empty())
            times.probe_cost = costs_->totals();
        emit_summary();
        times.summary_end = monotonic_seconds();
        // The machine powers off (or reboots, or halts) once the end record is out: detaching
        // the probes first would only delay that record (an fentry's detach updates its
        // trampoline: 0.04-0.17 s under TCG). They stay attached until the power goes; only a
        // shell at the end gets a kernel without them.
        if (config_.str("end") != "shell")
            park_until_power_off(std::move(probes_));
        return ok;
    }

private:
    // Where the loads run and within which limits, the same for every phase.
    bool plan_options() {
        // The runner's clock must not starve among thousands of runnable load tasks: its
        // thread runs SCHED_FIFO (it mostly sleeps); what it forks starts as SCHED_OTHER.
        sched_param fifo{};
        fifo.sched_priority = 1;
        if (::syscall(SYS_sched_setscheduler, 0, SCHED_FIFO | SCHED_RESET_ON_FORK, &fifo) != 0)
            console_.warning("scheduling", errno_error("SCHED_FIFO for the runner").message() +
                                               ": phases may run long under heavy loads");
        const std::string nice = config_.str("load.nice"); // its key refused all but -20..19
        std::from_chars(nice.data(), nice.data() + nice.size(), options_.nice);
        options_.tasks_max = config_.uint("limit.tasks");
        if (::access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
            options_.cgroup_root = "/sys/fs/cgroup";
        else
            console_.warning("cgroup2", "not mounted on /sys/fs/cgroup: loads run without task "
                                        "and memory limits");
        if (auto cpus = parse_cpu_list(config_.str("load.cpus"))) { // empty when not set
            const auto online = online_cpu_list();
            std::string offline;
            for (unsigned c : *cpus) {
                if (std::find(online.begin(), online.end(), c) != online.end())
                    options_.cpus.push_back(c);
                else
                    offline += (offline.empty() ? "" : ",") + std::to_string(c);
            }
            if (options_.cpus.empty()) {
                console_.error("load.cpus", "none of these CPUs is online", "load.cpus");
                return false;
            }
            if (!offline.empty())
                console_.warning("load.cpus", "not online, left out: CPU " + offline);
        }
        return true;
    }

    // limit.memory_mb, or what is available now less a reserve for the init and the kernel.
    uint64_t memory_limit() const {
        if (uint64_t mb = config_.uint("limit.memory_mb"))
            return mb << 20;
        auto meminfo = read_file("/proc/meminfo");
        auto kb = meminfo ? keyed_value(meminfo.value(), "MemAvailable:") : std::nullopt;
        if (!kb)
            return 0;
        const uint64_t available = *kb << 10;
        const uint64_t reserve = std::max<uint64_t>(64 << 20, available / 8);
        return available > reserve ? available - reserve : available / 2;
    }

    // An external load whose phase window is its program's run (load.NAME.window=program).
    bool window_is_program(const PhaseLoad& part) const {
        return part.external && config_.str("load." + part.external->name + ".window") == "program";
    }

    bool run_phase(const PhasePlan& phase, uint64_t round) {
        const double duration = config_.seconds("duration");
        // A program timed by its own run starts measured: no warm-up before it.
        const bool program_window =
            std::any_of(phase.loads.begin(), phase.loads.end(), [&](const PhaseLoad& p) { return window_is_program(p); });
        const double warmup = program_window ? 0 : config_.seconds("warmup");
        nlohmann::json rec{{"type", "phase"}, {"phase", phase.name}, {"round", round}};
        if (phase.joined()) {
            rec["loads"] = nlohmann::json::array();
            for (const auto& part : phase.loads)
                rec["loads"].push_back(load_json(part));
        } else if (!phase.loads.empty()) {
            rec["load"] = load_json(phase.loads.front());
        }
        if (!phase.unsupported.empty()) {
            rec["supported"] = false;
            rec["reason"] = phase.unsupported;
            console_.emit(std::move(rec));
            return true;
        }
        phase_name_ = phase.name;
        early_exits_ = nlohmann::json::array();
        // Idle and unmeasured before the phase, as the mm_cid experiment left 30 s between
        // its loads: what the last phase stirred up (deferred work, RCU callbacks) settles.
        if (const double rest = config_.seconds("rest"); rest > 0) {
            groups_.clear();
            wait_until(monotonic_seconds() + rest);
            rec["rest_s"] = rest;
        }

        // External loads' setups (servers) first: the loads start once each is ready.
        std::vector<ProgramRun> programs(phase.loads.size());
        auto stop_setups = [&] {
            for (auto& p : programs)
                if (p.setup)
                    p.setup->stop(console_);
        };
        for (size_t i = 0; i < phase.loads.size(); i++)
            if (!phase.loads[i].setup.empty() && !start_setup(phase, phase.loads[i], programs[i])) {
                stop_setups();
                return false;
            }
        for (auto& probe : probes_)
            probe->before_load();
        // One group (and cgroup) per load; a joined phase starts them all, then waits until
        // every one is ready, so that one window measures them together.
        std::vector<std::unique_ptr<LoadGroup>> groups;
        uint64_t memory_mb = 0;
        if (!phase.loads.empty()) {
            LoadOptions options = options_;
            // Taken once: each load's cgroup gets the same memory.max.
            options.memory_max = memory_limit();
            memory_mb = options.memory_max >> 20;
            uint64_t tasks = 0;
            for (const auto& part : phase.loads)
                tasks += std::min(part.load->tasks(part.params), options.tasks_max);
            if (auto raised = make_room_for_tasks(tasks); !raised.empty())
                rec["kernel_limits_raised"] = raised;
            rec["limits"] = {{"tasks", options.tasks_max}, {"memory_mb", memory_mb}};
            const double t_start = monotonic_seconds();
            for (const auto& part : phase.loads) {
                auto started = LoadGroup::start(*part.load, part.params, options);
                if (!started) {
                    const std::string who = phase.joined() ? std::string(part.load->name) + ": " : "";
                    console_.error("phase " + phase.name, who + started.error().message());
                    for (auto& g : groups) // the loads that did start
                        g->stop();
                    stop_setups();
                    return false;
                }
                groups.push_back(std::move(started.value()));
                if (auto& setup = programs[groups.size() - 1].setup; setup && setup->group())
                    if (Status s = groups.back()->adopt(setup->group()); !s)
                        console_.warning("phase " + phase.name,
                                         "setup left outside the load's cgroup: " + s.error().message());
                for (const auto& note : groups.back()->notes())
                    console_.warning("phase " + phase.name, note);
            }
            bool ready = true;
            for (auto& g : groups) {
                std::vector<WorkerExit> exits;
                ready = g->wait_ready(t_start + kReadyTimeout, exits) && ready;
                if (!find_external(g->spec())) // a program that ends is not a loss
                    for (const auto& e : exits)
                        early_exits_.push_back({{"pid", e.pid}, {"how", describe_exit(e.status)}});
            }
            if (!ready)
                console_.warning("phase " + phase.name, "not every worker was ready after " +
                                                            std::to_string(int(kReadyTimeout)) +
                                                            " s: measuring what runs");
            rec["startup_s"] = monotonic_seconds() - t_start;
        }
        groups_.clear();
        for (auto& g : groups)
            groups_.push_back(g.get());
        const double churn = config_.seconds("churn");
        churn_next_ = !groups.empty() && churn > 0 ? monotonic_seconds() + churn : HUGE_VAL;
        wait_until(monotonic_seconds() + warmup);

        for (auto& probe : probes_)
            probe->phase_begin();
        costs_->open(probes_);
        const double interval = duration <= 2 ? duration / 4 : 1.0;
        // The first load's snapshot times the window for all (the rest are read right after).
        std::vector<Snapshot> g0;
        for (auto* g : groups_)
            g0.push_back(snapshot(g));
        const Snapshot s0 = g0.empty() ? snapshot(nullptr) : g0.front();
        if (background_)
            background_->window("window_open", phase.name, round);
        std::vector<nlohmann::json> samples(std::max<size_t>(groups.size(), 1), nlohmann::json::array());
        nlohmann::json task_samples = nlohmann::json::array();
        std::vector<uint64_t> last_ops;
        for (const auto& s : g0)
            last_ops.push_back(s.ops);
        uint64_t peak_tasks = 0;
        double last_t = s0.t;
        // The window: `duration`, or until every program timed by its run has ended.
        std::vector<const LoadGroup*> timed;
        for (size_t i = 0; i < groups.size(); i++)
            if ((programs[i].timed = window_is_program(phase.loads[i])))
                timed.push_back(groups[i].get());
        auto window_open = [&](double next) {
            return timed.empty() ? next < s0.t + duration + interval / 2
                                 : !std::all_of(timed.begin(), timed.end(), [](const LoadGroup* g) { return g->ended(); });
        };
        for (double next = s0.t + interval; window_open(next); next += interval) {
            wait_until(timed.empty() ? std::min(next, s0.t + duration) : next, timed);
            const double now = monotonic_seconds();
            const double dt = std::max(now - last_t, 1e-9);
            if (groups.empty())
                samples[0].push_back(0.0);
            std::optional<uint64_t> tasks;
            for (size_t i = 0; i < groups.size(); i++) {
                const uint64_t ops = groups[i]->total_ops();
                samples[i].push_back(double(ops - last_ops[i]) / dt);
                last_ops[i] = ops;
                if (auto n = groups[i]->cgroup_tasks())
                    tasks = tasks.value_or(0) + *n; // every load's tasks, as one phase's
            }
            last_t = now;
            if (tasks) {
                task_samples.push_back(*tasks);
                peak_tasks = std::max(peak_tasks, *tasks);
            }
            for (auto& probe : probes_)
                probe->sample(); // at the phase's own sampling points
        }
        for (auto& probe : probes_)
            probe->window_end();
        costs_->close(probes_, phase.name, monotonic_seconds() - s0.t);
        std::vector<Snapshot> g1;
        for (auto* g : groups_)
            g1.push_back(snapshot(g));
        const Snapshot s1 = g1.empty() ? snapshot(nullptr) : g1.front();
        if (background_) {
            // Its answer comes while the load still runs, as the one to window_open did.
            background_->window("window_close", phase.name, round);
            background_->await_answer();
        }
        const double elapsed = s1.t - s0.t;
        for (auto& p : programs) {
            p.window_end = s1.t;
            p.window_s = elapsed;
        }
        // External programs end by themselves ({duration} covers the warm-up and the window).
        const double end_by = monotonic_seconds() + std::max(kProgramEndGrace, duration);
        for (size_t i = 0; i < groups.size(); i++)
            if (phase.loads[i].external)
                programs[i].ended = groups[i]->wait_exit(end_by);
        stop_setups();
        std::vector<StopReport> stopped;
        CpuTime earlier{};
        for (auto& g : groups) {
            StopReport r = g->stop();
            // getrusage counts every child reaped since the group started, the earlier
            // groups' among them: take theirs off (used without a cgroup only).
            r.cpu.user_s -= earlier.user_s;
            r.cpu.sys_s -= earlier.sys_s;
            earlier.user_s += r.cpu.user_s;
            earlier.sys_s += r.cpu.sys_s;
            stopped.push_back(r);
        }
        const LeftoverTasks left =
            settle_user_tasks(background_ ? background_->group() : 0, monotonic_seconds() + kSettleS);
        const unsigned leftover = left.count;
        groups_.clear();
        nlohmann::json probe_results = nlohmann::json::array();
        for (size_t i = 0; i < probes_.size(); i++) {
            probe_results.push_back(probes_[i]->phase_end());
            costs_->add(i, probe_results.back(), phase.name);
        }
        add_ticks_per_span(probe_results);

        rec["duration_s"] = elapsed;
        rec["warmup_s"] = warmup;
        rec["tasks"] = {{"created", delta(s0.forks, s1.forks)}, {"leftover", leftover}};
        if (leftover) {
            nlohmann::json states = nlohmann::json::object();
            for (const auto& [state, n] : left.states)
                states[std::string(1, state)] = n;
            rec["tasks"]["leftover_states"] = states;
            console_.warning("phase " + phase.name, std::to_string(leftover) +
                                                        " tasks are left after the phase's stop: " +
                                                        describe_leftovers(left));
        }
        if (!phase.joined() && !groups.empty()) {
            add_load_results(rec, phase.name, phase.loads.front(), *groups.front(), g0.front(),
                             g1.front(), stopped.front(), elapsed, memory_mb);
            rec["samples"] = {{"interval_s", interval}, {"ops_per_s", samples.front()}};
            if (phase.loads.front().external) {
                add_program_results(rec, phase.name, phase.loads.front(), *groups.front(), programs.front());
                rec["samples"].erase("ops_per_s"); // the program's work is its own to count
            }
        } else if (phase.joined()) {
            // Each load's numbers in "loads"; its metrics also at the top as LOAD.METRIC, where
            // compare and the summary find every metric of a phase.
            rec["metrics"] = nlohmann::json::object();
            rec["samples"] = {{"interval_s", interval}};
            rec["tasks"]["reaped"] = 0;
            rec["tasks"]["running_after_stop"] = 0;
            double stop_s = 0;
            for (size_t i = 0; i < groups.size(); i++) {
                auto& entry = rec["loads"][i];
                entry["tasks"] = nlohmann::json::object();
                add_load_results(entry, phase.name, phase.loads[i], *groups[i], g0[i], g1[i],
                                 stopped[i], elapsed, memory_mb);
                if (phase.loads[i].external)
                    add_program_results(entry, phase.name, phase.loads[i], *groups[i], programs[i]);
                const std::string name(phase.loads[i].load->name);
                for (const auto& [metric_name, m] : entry["metrics"].items())
                    rec["metrics"][name + "." + metric_name] = m;
                if (!phase.loads[i].external)
                    rec["samples"][name + ".ops_per_s"] = samples[i];
                rec["tasks"]["reaped"] = rec["tasks"]["reaped"].get<unsigned>() + stopped[i].reaped;
                rec["tasks"]["running_after_stop"] =
                    rec["tasks"]["running_after_stop"].get<unsigned>() + stopped[i].left;
                stop_s += stopped[i].seconds;
            }
            rec["stop_s"] = stop_s;
        }
        if (!groups.empty()) {
            if (!task_samples.empty()) {
                rec["samples"]["tasks"] = task_samples;
                rec["tasks"]["peak_sampled"] = peak_tasks;
            }
            if (!early_exits_.empty())
                rec["early_exits"] = early_exits_;
            remember_for_summary(phase, rec);
        }
        console_.emit(std::move(rec));
        for (auto& r : probe_results) {
            r["type"] = "probe";
            r["phase"] = phase.name;
            r["round"] = round;
            console_.emit(std::move(r));
        }
        for (const auto& ev : kmsg_.drain()) {
            nlohmann::json r = ev.to_json();
            r["type"] = "kernel";
            r["phase"] = phase.name;
            r["round"] = round;
            console_.emit(std::move(r));
        }
        return true;
    }

    nlohmann::json load_json(const PhaseLoad& part) const {
        nlohmann::json j{{"name", part.load->name},
                         {"op_unit", part.load->op_unit},
                         {"params", params_json(part.params)}};
        if (part.sweep_value) // "tcp.clients", "load.NAME.clients" -> "clients": 4
            j[std::string(part.load->sweep.substr(part.load->sweep.rfind('.') + 1))] =
                part.sweep_value;
        if (!options_.cpus.empty())
            j["cpus"] = options_.cpus;
        if (options_.nice)
            j["nice"] = options_.nice;
        return j;
    }

    // One load's numbers over the window, into `rec`: the phase record for a single load,
    // or the load's entry in "loads".
    void add_load_results(nlohmann::json& rec, const std::string& phase_name,
                          const PhaseLoad& part, const LoadGroup& group, const Snapshot& s0,
                          const Snapshot& s1, const StopReport& stopped, double window_s,
                          uint64_t memory_mb) {
        const double elapsed = std::max(window_s, 1e-9);
        const uint64_t ops = s1.ops - s0.ops;
        const std::string unit = std::string(part.load->op_unit) + "/s";
        std::vector<uint64_t> per_worker;
        for (size_t i = 0; i < s1.per_worker.size(); i++)
            per_worker.push_back(s1.per_worker[i] - s0.per_worker[i]);
        rec["ops"] = ops;
        rec["ops_per_worker"] = per_worker;
        rec["metrics"] = {
            {"ops_per_s", metric(double(ops) / elapsed, unit, "hmean", "higher")},
            {"ops_per_s_per_worker",
             metric(double(ops) / elapsed / part.params.workers, unit, "hmean", "higher")}};
        if (part.load->bytes_per_op)
            rec["metrics"]["mb_per_s"] =
                metric(double(ops * part.load->bytes_per_op(part.params)) / elapsed / 1e6, "MB/s",
                       "hmean", "higher");
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

    // Starts an external load's setup and waits for its ready text; false, with an error
    // record, when it cannot start or the text does not come.
    bool start_setup(const PhasePlan& phase, const PhaseLoad& part, ProgramRun& run) {
        const std::string key = "load." + part.external->name;
        BackgroundOptions o;
        o.command = part.setup;
        o.ready = config_.str(key + ".ready");
        o.ready_port = unsigned(config_.uint(key + ".ready_port"));
        o.ready_timeout = config_.seconds(key + ".ready_timeout");
        o.output_path = external_output_path(part.external->name + "-setup");
        o.what = "phase " + phase.name;
        o.key = key + ".setup";
        o.ready_key = key + ".ready";
        run.setup = std::make_unique<Background>();
        return run.setup->start(std::move(o), console_) && run.setup->wait_ready(console_);
    }

    // An external load's numbers: the program's end, its output's tail and the metric taken
    // from it replace the operation counts, which a program does not give. A program that
    // failed, or a metric not found, is an error record beside the phase record.
    void add_program_results(nlohmann::json& rec, const std::string& phase_name, const PhaseLoad& part,
                             const LoadGroup& group, const ProgramRun& run) {
        const std::string key = "load." + part.external->name;
        for (const char* field : {"ops", "ops_per_worker"})
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

    // Sleeps until `until` (monotonic seconds), or until every group of `or_ended` has ended,
    // taking signals synchronously: SIGCHLD tells that a worker died on its own, which the
    // phase records. Respawns the load when churn is due.
    void wait_until(double until, const std::vector<const LoadGroup*>& or_ended = {}) {
        sigset_t all;
        sigfillset(&all);
        auto all_ended = [&] {
            return !or_ended.empty() &&
                   std::all_of(or_ended.begin(), or_ended.end(), [](const LoadGroup* g) { return g->ended(); });
        };
        for (double now = monotonic_seconds(); now < until && !all_ended(); now = monotonic_seconds()) {
            if (!groups_.empty() && now >= churn_next_) {
                churn_next_ = monotonic_seconds() + config_.seconds("churn");
                for (auto* g : groups_)
                    if (Status s = g->respawn(); !s) {
                        console_.error("phase " + phase_name_, "churn: " + s.error().message());
                        churn_next_ = HUGE_VAL;
                    }
                continue;
            }
            const double left = std::min(until, churn_next_) - now;
            timespec ts{static_cast<time_t>(left),
                        static_cast<long>((left - std::floor(left)) * 1e9)};
            siginfo_t info;
            int sig = ::sigtimedwait(&all, &info, &ts);
            if (sig == SIGCHLD)
                for (auto* g : groups_)
                    for (const auto& e : g->collect_early_exits())
                        if (!find_external(g->spec())) // a program that ends is not a loss
                            early_exits_.push_back({{"pid", e.pid}, {"how", describe_exit(e.status)}});
        }
    }

    // Each metric of a load phase, over the rounds, for the summary record.
    void remember_for_summary(const PhasePlan& phase, const nlohmann::json& rec) {
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
    void emit_summary() {
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

    const Config& config_;
    Console& console_;
    KmsgWatcher& kmsg_;
    std::vector<PhasePlan> phases_;
    std::vector<std::unique_ptr<Probe>> probes_;
    std::unique_ptr<ProbeCosts> costs_; // after probes_: statistics end before they detach
    LoadOptions options_;
    // The loads of the phase that runs now, for wait_until().
    std::vector<LoadGroup*> groups_;
    std::string phase_name_;
    double churn_next_ = HUGE_VAL;
    Background* background_ = nullptr;
    nlohmann::json early_exits_;
    std::vector<nlohmann::json> summary_;
};

} // namespace

bool run_experiment(const Config& config, Console& console, KmsgWatcher& kmsg, ExperimentTimes& times) {
    const BackgroundOptions options = background_options(config);
    if (options.command.empty())
        for (const char* key : {"background.ready", "background.ready_timeout",
                                "background.window_signal", "background.record"})
            if (config.source(key) != "default") {
                console.error(key, "set without initbench.background", key);
                return false;
            }
    // The background command runs around the commands or the phases; they wait until it is
    // ready, and it is stopped (its record emitted, when asked for) whatever happens.
    Background background;
    auto around = [&](auto&& body) {
        if (!background.start(options, console))
            return false;
        const bool ok = background.wait_ready(console) && body();
        background.stop(console);
        return ok;
    };
    if (command_mode(config))
        return around([&] { return run_commands(config, console, kmsg, times); });
    Runner runner(config, console, kmsg);
    if (!runner.plan())
        return false;
    return around([&] {
        runner.set_background(&background);
        return runner.run(times);
    });
}

} // namespace initbench
