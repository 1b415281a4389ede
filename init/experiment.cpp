#include "init/experiment.h"

#include "bpf/core/probe.h"
#include "bpf/core/probe_cost.h"
#include "bpf/core/setup_times.h"
#include "bpf/core/vmlinux_btf.h"
#include "common/record_types.h"
#include "common/text.h"
#include "init/background.h"
#include "init/commands.h"
#include "payload/core/external.h"
#include "payload/core/leftover_tasks.h"
#include "payload/core/load_group.h"
#include "sys/procfs.h"
#include "bpf/perf/perf_counters.h"
#include "init/phase_plan.h"
#include "init/phase_record.h"
#include "payload/core/load.h"

#include <algorithm>
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
// How long the tasks a phase killed may take to end (and its orphans to be reaped) before
// those still there are reported as left over: at once on a quiet machine.
constexpr double kSettleS = 5;

std::vector<std::unique_ptr<Probe>> make_probes(const Config& config) {
    std::vector<std::unique_ptr<Probe>> probes;
    for (const ProbeSpec* spec : probe_registry())
        make_probes_of(*spec, config, probes);
    setup_end();
    release_vmlinux_btf(); // the loads can have its memory
    return probes;
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

    bool plan() { return plan_experiment(config_, console_, plan_); }

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
            for (const auto& phase : plan_.phases)
                ok = run_phase(phase, round) && ok;
        times.last_phase_end = monotonic_seconds();
        if (!probes_.empty())
            times.probe_cost = costs_->totals();
        recorder_.emit_summary();
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

    // One phase of one round: its loads started, measured over the window, stopped; then
    // its record, the probes' and the kernel's events. False when it could not run.
    bool run_phase(const PhasePlan& phase, uint64_t round) {
        nlohmann::json rec = recorder_.head(phase, round);
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
        PhaseRun run;
        run.programs.resize(phase.loads.size());
        // A program timed by its own run starts measured: no warm-up before it.
        const bool program_window =
            std::any_of(phase.loads.begin(), phase.loads.end(), [&](const PhaseLoad& p) { return window_is_program(p); });
        run.warmup = program_window ? 0 : config_.seconds("warmup");
        if (!start_loads(phase, run, rec))
            return false;
        wait_until(monotonic_seconds() + run.warmup);
        measure_window(phase, round, run);
        stop_loads(phase, run);
        nlohmann::json probe_results = nlohmann::json::array();
        for (size_t i = 0; i < probes_.size(); i++) {
            probe_results.push_back(probes_[i]->phase_end());
            costs_->add(i, probe_results.back(), phase.name);
        }
        // Metrics across probes (kthread's ticks per span), as their kinds declare.
        for (const ProbeSpec* spec : probe_registry())
            if (spec->combine)
                spec->combine(probe_results);

        run.early_exits = early_exits_;
        recorder_.add_results(rec, phase, run);
        if (!run.groups.empty())
            recorder_.remember_for_summary(phase, rec);
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

    // External loads' setups (servers) first, then one group (and cgroup) per load; a joined
    // phase starts them all, then waits until every one is ready, so that one window
    // measures them together. False, with an error record, when one cannot start.
    bool start_loads(const PhasePlan& phase, PhaseRun& run, nlohmann::json& rec) {
        auto stop_setups = [&] {
            for (auto& p : run.programs)
                if (p.setup)
                    p.setup->stop(console_);
        };
        for (size_t i = 0; i < phase.loads.size(); i++)
            if (!phase.loads[i].setup.empty() && !start_setup(phase, phase.loads[i], run.programs[i])) {
                stop_setups();
                return false;
            }
        for (auto& probe : probes_)
            probe->before_load();
        auto& groups = run.groups;
        if (!phase.loads.empty()) {
            LoadOptions options = options_;
            // Taken once: each load's cgroup gets the same memory.max.
            options.memory_max = memory_limit();
            run.memory_mb = options.memory_max >> 20;
            uint64_t tasks = 0;
            for (const auto& part : phase.loads)
                tasks += std::min(part.load->tasks(part.params), options.tasks_max);
            if (auto raised = make_room_for_tasks(tasks); !raised.empty())
                rec["kernel_limits_raised"] = raised;
            rec["limits"] = {{"tasks", options.tasks_max}, {"memory_mb", run.memory_mb}};
            const double t_start = monotonic_seconds();
            for (const auto& part : phase.loads) {
                auto started = LoadGroup::start(*part.load, part.params, options);
                if (!started) {
                    const std::string who = phase.joined() ? std::string(part.load->name()) + ": " : "";
                    console_.error("phase " + phase.name, who + started.error().message());
                    for (auto& g : groups) // the loads that did start
                        g->stop();
                    stop_setups();
                    return false;
                }
                groups.push_back(std::move(started.value()));
                if (auto& setup = run.programs[groups.size() - 1].setup; setup && setup->group())
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
        return true;
    }

    // The window: `duration`, or until every program timed by its run has ended. The probes
    // open and close with it; the loads' counters are read at its edges and sampled inside.
    void measure_window(const PhasePlan& phase, uint64_t round, PhaseRun& run) {
        const double duration = config_.seconds("duration");
        const auto& groups = run.groups;
        Window& w = run.window;
        for (auto& probe : probes_)
            probe->phase_begin();
        costs_->open(probes_);
        w.interval = duration <= 2 ? duration / 4 : 1.0;
        // The first load's snapshot times the window for all (the rest are read right after).
        for (auto* g : groups_)
            w.open.push_back(snapshot(g));
        w.first_open = w.open.empty() ? snapshot(nullptr) : w.open.front();
        if (background_)
            background_->window("window_open", phase.name, round);
        w.ops_per_s.assign(std::max<size_t>(groups.size(), 1), nlohmann::json::array());
        std::vector<uint64_t> last_ops;
        for (const auto& s : w.open)
            last_ops.push_back(s.ops);
        double last_t = w.first_open.t;
        std::vector<const LoadGroup*> timed;
        for (size_t i = 0; i < groups.size(); i++)
            if ((run.programs[i].timed = window_is_program(phase.loads[i])))
                timed.push_back(groups[i].get());
        const double start = w.first_open.t;
        auto window_open = [&](double next) {
            return timed.empty() ? next < start + duration + w.interval / 2
                                 : !std::all_of(timed.begin(), timed.end(), [](const LoadGroup* g) { return g->ended(); });
        };
        for (double next = start + w.interval; window_open(next); next += w.interval) {
            wait_until(timed.empty() ? std::min(next, start + duration) : next, timed);
            const double now = monotonic_seconds();
            const double dt = std::max(now - last_t, 1e-9);
            if (groups.empty())
                w.ops_per_s[0].push_back(0.0);
            std::optional<uint64_t> tasks;
            for (size_t i = 0; i < groups.size(); i++) {
                const uint64_t ops = groups[i]->total_ops();
                w.ops_per_s[i].push_back(double(ops - last_ops[i]) / dt);
                last_ops[i] = ops;
                if (auto n = groups[i]->cgroup_tasks())
                    tasks = tasks.value_or(0) + *n; // every load's tasks, as one phase's
            }
            last_t = now;
            if (tasks) {
                w.tasks.push_back(*tasks);
                w.peak_tasks = std::max(w.peak_tasks, *tasks);
            }
            for (auto& probe : probes_)
                probe->sample(); // at the phase's own sampling points
        }
        for (auto& probe : probes_)
            probe->window_end();
        costs_->close(probes_, phase.name, monotonic_seconds() - start);
        for (auto* g : groups_)
            w.close.push_back(snapshot(g));
        w.first_close = w.close.empty() ? snapshot(nullptr) : w.close.front();
        if (background_) {
            // Its answer comes while the load still runs, as the one to window_open did.
            background_->window("window_close", phase.name, round);
            background_->await_answer();
        }
        for (auto& p : run.programs) {
            p.window_end = w.first_close.t;
            p.window_s = w.seconds();
        }
    }

    // External programs end by themselves ({duration} covers the warm-up and the window);
    // the loads are stopped, their tasks reaped, and what is left over counted.
    void stop_loads(const PhasePlan& phase, PhaseRun& run) {
        const double end_by = monotonic_seconds() + std::max(kProgramEndGrace, config_.seconds("duration"));
        for (size_t i = 0; i < run.groups.size(); i++)
            if (phase.loads[i].external)
                run.programs[i].ended = run.groups[i]->wait_exit(end_by);
        for (auto& p : run.programs)
            if (p.setup)
                p.setup->stop(console_);
        CpuTime earlier{};
        for (auto& g : run.groups) {
            StopReport r = g->stop();
            // getrusage counts every child reaped since the group started, the earlier
            // groups' among them: take theirs off (used without a cgroup only).
            r.cpu.user_s -= earlier.user_s;
            r.cpu.sys_s -= earlier.sys_s;
            earlier.user_s += r.cpu.user_s;
            earlier.sys_s += r.cpu.sys_s;
            run.stopped.push_back(r);
        }
        run.leftover = settle_user_tasks(background_ ? background_->group() : 0, monotonic_seconds() + kSettleS);
        groups_.clear();
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

    const Config& config_;
    Console& console_;
    KmsgWatcher& kmsg_;
    ExperimentPlan plan_;
    std::vector<std::unique_ptr<Probe>> probes_;
    std::unique_ptr<ProbeCosts> costs_; // after probes_: statistics end before they detach
    const LoadOptions& options_ = plan_.options;
    // The loads of the phase that runs now, for wait_until().
    std::vector<LoadGroup*> groups_;
    std::string phase_name_;
    double churn_next_ = HUGE_VAL;
    Background* background_ = nullptr;
    nlohmann::json early_exits_;
    PhaseRecorder recorder_{config_, console_, options_};
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
