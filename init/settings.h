// The experiment's configuration as PID 1 sees it: /proc/cmdline over a payload's experiment
// file (/payload/experiment.conf, added by `initbench pack --config`) over the embedded
// profiles in /etc/initbench/profiles over the defaults.
#pragma once

#include "common/settings_layers.h"

#include <optional>
#include <string>
#include <vector>

namespace initbench {

ConfigResult load_settings(const std::string& cmdline);

} // namespace initbench
