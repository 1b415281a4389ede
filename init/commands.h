// Commands and kernel modules under counters, like `perf stat -r N CMD`: a command
// (initbench.cmd) is run N times (initbench.repeat), each run counted on its own from its
// exec to its exit; a module (initbench.module) is loaded with its parameters through
// finit_module and unloaded again on every repeat, the load counted. One "command" record
// each, with every run's values, the mean, the sample stddev and perf's ± (standard error of
// the mean relative to the mean).
#pragma once

#include "common/config.h"
#include "init/console.h"
#include "init/experiment.h"
#include "init/kmsg.h"

namespace initbench {

// The PATH payload commands run with, as an environment entry ("PATH=/payload/bin:...").
const char* command_path_env();

// NAME looked up in that PATH (a name with a '/' is taken as it is); "" when not found.
std::string resolve_program(const std::string& name);

// Returns false when a command or module could not be run at all (an error record says why).
bool run_commands(const Config& config, Console& console, KmsgWatcher& kmsg,
                  ExperimentTimes& times);

} // namespace initbench
