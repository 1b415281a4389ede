#include "init/experiment.h"

#include "bpf/funclat_probe.h"
#include "bpf/kthread_probe.h"
#include "bpf/schedstat_probe.h"
#include "bpf/span_probe.h"
#include "bpf/task_storage_probe.h"
#include "bpf/wakeups_probe.h"
#include "init/load_group.h"
#include "payload/load.h"

#include <cmath>
#include <csignal>
#include <sys/wait.h>

namespace initbench {
namespace {

struct PhasePlan {
    std::string name;              // "none" or a load's name
    const LoadSpec* load = nullptr; // null for "none"
    unsigned workers = 0;
};

nlohmann::json metric(double value, std::string unit, std::string agg, std::string better) {
    return {{"value", value}, {"unit", std::move(unit)}, {"agg", std::move(agg)}, {"better", std::move(better)}};
}

std::string describe_exit(int status) {
    if (WIFSIGNALED(status))
        return std::string("killed by signal ") + std::to_string(WTERMSIG(status));
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// Sleeps until `until` (monotonic seconds), taking signals synchronously: SIGCHLD tells
// that a worker died on its own, which the phase records.
void wait_until(double until, LoadGroup* group, nlohmann::json& early_exits) {
    sigset_t all;
    sigfillset(&all);
    for (double now = monotonic_seconds(); now < until; now = monotonic_seconds()) {
        double left = until - now;
        timespec ts{static_cast<time_t>(left), static_cast<long>((left - std::floor(left)) * 1e9)};
        siginfo_t info;
        int sig = ::sigtimedwait(&all, &info, &ts);
        if (sig == SIGCHLD && group)
            for (const auto& e : group->collect_early_exits())
                early_exits.push_back({{"pid", e.pid}, {"how", describe_exit(e.status)}});
    }
}

std::vector<std::unique_ptr<Probe>> make_probes(const Config& config) {
    std::vector<std::unique_ptr<Probe>> probes;
    FunclatOptions funclat;
    std::string why; // the key's own check already refused a bad spec
    funclat.lin = parse_linear_hist(config.str("funclat.hist"), why).value_or(LinearHistogramSpec{});
    funclat.mode = config.str("attach");
    funclat.subtract = config.str("funclat.subtract");
    for (const auto& fn : config.list("funclat"))
        probes.push_back(make_funclat(fn, funclat));
    if (auto span = config.str("span"); !span.empty())
        probes.push_back(make_span(span.substr(0, span.find(':')), span.substr(span.find(':') + 1), config.str("attach")));
    if (auto names = config.list("kthread"); !names.empty())
        probes.push_back(make_kthread(names));
    if (config.flag("wakeups"))
        probes.push_back(make_wakeups());
    if (config.flag("schedstat"))
        probes.push_back(make_schedstat());
    if (config.flag("task_storage_churn"))
        probes.push_back(make_task_storage_churn());
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
    for (auto& r : probe_results)
        if (r.value("probe", "") == "kthread")
            r["ticks_per_span"] = r.value("ticks", 0.0) / (*span)["count"].get<double>();
}

class Runner {
public:
    Runner(const Config& config, Console& console, KmsgWatcher& kmsg)
        : config_(config), console_(console), kmsg_(kmsg) {}

    bool plan() {
        bool ok = true;
        for (const auto& name : config_.list("phases")) {
            PhasePlan p{name};
            if (name != "none") {
                p.load = find_load(name);
                if (!p.load) {
                    console_.error("phases", "unknown load '" + name + "'", "phases");
                    ok = false;
                    continue;
                }
                if (auto why = p.load->unsupported(); !why.empty()) {
                    console_.warning("load " + name, "unsupported: " + why);
                    continue;
                }
                auto w = config_.uint("workers");
                p.workers = w ? static_cast<unsigned>(w) : p.load->default_workers();
            }
            phases_.push_back(std::move(p));
        }
        return ok;
    }

    bool run(ExperimentTimes& times) {
        const double t_probes = monotonic_seconds();
        probes_ = make_probes(config_);
        times.probe_setup_s = monotonic_seconds() - t_probes;
        for (const auto& probe : probes_)
            if (!probe->supported()) {
                auto d = probe->describe();
                console_.warning("probe " + probe->name() + " " + d.value("function", ""), d.value("reason", ""));
            }
        const auto rounds = config_.uint("rounds");
        bool ok = true;
        times.first_phase_start = monotonic_seconds();
        for (uint64_t round = 0; round < rounds; round++)
            for (const auto& phase : phases_)
                ok = run_phase(phase, round) && ok;
        times.last_phase_end = monotonic_seconds();
        return ok;
    }

private:
    bool run_phase(const PhasePlan& phase, uint64_t round) {
        const double duration = config_.seconds("duration");
        const double warmup = config_.seconds("warmup");
        nlohmann::json early_exits = nlohmann::json::array();

        for (auto& probe : probes_)
            probe->before_load();
        std::unique_ptr<LoadGroup> group;
        if (phase.load) {
            auto started = LoadGroup::start(*phase.load, phase.workers);
            if (!started) {
                console_.error("phase " + phase.name, started.error().message());
                return false;
            }
            group = std::move(started.value());
        }
        wait_until(monotonic_seconds() + warmup, group.get(), early_exits);

        for (auto& probe : probes_)
            probe->phase_begin();
        const double interval = duration <= 2 ? duration / 4 : 1.0;
        const double t0 = monotonic_seconds();
        const uint64_t ops0 = group ? group->total_ops() : 0;
        const auto per_worker0 = group ? group->ops_per_worker() : std::vector<uint64_t>{};
        nlohmann::json samples = nlohmann::json::array();
        uint64_t last_ops = ops0;
        double last_t = t0;
        for (double next = t0 + interval; next < t0 + duration + interval / 2; next += interval) {
            wait_until(std::min(next, t0 + duration), group.get(), early_exits);
            double now = monotonic_seconds();
            uint64_t ops = group ? group->total_ops() : 0;
            samples.push_back((ops - last_ops) / std::max(now - last_t, 1e-9));
            last_ops = ops;
            last_t = now;
        }
        for (auto& probe : probes_)
            probe->window_end();
        const double elapsed = monotonic_seconds() - t0;
        const uint64_t ops = (group ? group->total_ops() : 0) - ops0;
        std::vector<uint64_t> per_worker;
        if (group) {
            auto now = group->ops_per_worker();
            for (size_t i = 0; i < now.size(); i++)
                per_worker.push_back(now[i] - per_worker0[i]);
        }
        nlohmann::json cpu = group ? group->stop() : nlohmann::json(nullptr);
        nlohmann::json probe_results = nlohmann::json::array();
        for (auto& probe : probes_)
            probe_results.push_back(probe->phase_end());
        add_ticks_per_span(probe_results);

        nlohmann::json rec{{"type", "phase"}, {"phase", phase.name}, {"round", round},
                           {"duration_s", elapsed}, {"warmup_s", warmup}};
        if (group) {
            std::string unit = std::string(phase.load->op_unit) + "/s";
            rec["load"] = {{"name", phase.name}, {"workers", phase.workers}, {"op_unit", phase.load->op_unit}};
            rec["ops"] = ops;
            rec["ops_per_worker"] = per_worker;
            rec["samples"] = {{"interval_s", interval}, {"ops_per_s", samples}};
            rec["cpu"] = cpu;
            rec["metrics"] = {{"ops_per_s", metric(ops / elapsed, unit, "hmean", "higher")}};
            if (!early_exits.empty())
                rec["early_exits"] = early_exits;
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

    const Config& config_;
    Console& console_;
    KmsgWatcher& kmsg_;
    std::vector<PhasePlan> phases_;
    std::vector<std::unique_ptr<Probe>> probes_;
};

} // namespace

bool run_experiment(const Config& config, Console& console, KmsgWatcher& kmsg, ExperimentTimes& times) {
    Runner runner(config, console, kmsg);
    if (!runner.plan())
        return false;
    return runner.run(times);
}

} // namespace initbench
