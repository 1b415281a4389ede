// What the experiment will run, worked out before its first phase: the phases that `phases`
// names (a load, each value of its sweep, or loads joined with +), each load's parameters,
// and the options every load runs with (load.cpus, load.nice, limit.tasks, the cgroup root).
#pragma once

#include "common/config.h"
#include "init/console.h"
#include "payload/core/external.h"
#include "payload/core/load.h"
#include "payload/core/load_group.h"

#include <string>
#include <vector>

namespace initbench {

struct PhaseLoad {
    const LoadSpec* load = nullptr;
    LoadParams params;
    unsigned sweep_value = 0;               // the value of the load's sweep key; 0 without one
    const ExternalLoad* external = nullptr; // an external load (load.NAME)
    std::string setup;                      // its setup command, placeholders replaced
};

struct PhasePlan {
    std::string name; // "none", a load's name, LOAD-N for a sweep's value N, or LOAD+LOAD...
    // Empty for "none"; two or more for a joined phase, started together and measured in
    // one window.
    std::vector<PhaseLoad> loads;
    std::string unsupported; // why this kernel cannot run the load (or one of them)
    bool joined() const { return loads.size() > 1; }
};

struct ExperimentPlan {
    std::vector<PhasePlan> phases; // in the order of `phases`, for every round
    LoadOptions options;
};

// Also makes the calling thread (the runner) SCHED_FIFO, so that its clock does not starve
// among the loads. False, with error records, when the experiment cannot run as described.
bool plan_experiment(const Config& config, Console& console, ExperimentPlan& plan);

} // namespace initbench
