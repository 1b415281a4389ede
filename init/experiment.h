// The experiment runner: rounds × phases, each phase a load (or none) run for a fixed time
// while the probes measure; one record per phase and per probe.
#pragma once

#include "common/config.h"
#include "init/console.h"
#include "init/kmsg.h"

namespace initbench {

struct ExperimentTimes {
    double first_phase_start = 0; // monotonic seconds
    double probe_setup_s = 0;     // opening, loading and attaching the BPF probes
    nlohmann::json probe_setup;   // its split by probe and step (bpf/core/setup_times.h)
    nlohmann::json probe_cost;    // the probes' run time per phase (bpf/core/probe_cost.h)
    double probes_start = 0;      // monotonic seconds: probe set-up began
    double last_phase_end = 0;
    double summary_end = 0;     // the summary records written after the last phase
};

// Returns false when the experiment could not run as described (errors are already on the
// console as records).
bool run_experiment(const Config& config, Console& console, KmsgWatcher& kmsg, ExperimentTimes& times);

} // namespace initbench
