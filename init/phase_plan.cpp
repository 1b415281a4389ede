#include "init/phase_plan.h"

#include "common/perf_events.h"
#include "init/commands.h"
#include "bpf/perf/perf_counters.h"
#include "sys/procfs.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace initbench {
namespace {

class Planner {
public:
    Planner(const Config& config, Console& console, ExperimentPlan& plan)
        : config_(config), console_(console), phases_(plan.phases), options_(plan.options) {}

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
                        p.unsupported = std::string(load->name()) + ": " + no;
                }
                if (within_task_limit(p))
                    phases_.push_back(std::move(p));
                else
                    ok = false;
                continue;
            }
            const LoadSpec* load = loads.front();
            for (unsigned v : sweep_values(*load, config_)) {
                PhasePlan p{load->sweep().empty() ? name : name + "-" + std::to_string(v),
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
            const std::string who = p.joined() ? std::string(part.load->name()) + ": " : "";
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
                std::string listed;
                for (unsigned c : online)
                    listed += (listed.empty() ? "" : ",") + std::to_string(c);
                console_.error("load.cpus", "none of CPUs " + offline + " is online (online: " + listed + ")",
                               "load.cpus");
                return false;
            }
            if (!offline.empty())
                console_.warning("load.cpus", "not online, left out: CPU " + offline);
        }
        return true;
    }


    const Config& config_;
    Console& console_;
    std::vector<PhasePlan>& phases_;
    LoadOptions& options_;
};

} // namespace

bool plan_experiment(const Config& config, Console& console, ExperimentPlan& plan) {
    return Planner(config, console, plan).plan();
}

} // namespace initbench
