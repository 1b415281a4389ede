// The experiment's configuration as PID 1 sees it: /proc/cmdline over the embedded
// profiles in /etc/initbench/profiles (and a payload's experiment file, if present).
#pragma once

#include "common/config.h"

#include <string>
#include <vector>

namespace initbench {

inline constexpr const char* kProfileDir = "/etc/initbench/profiles";

ConfigResult load_settings(const std::string& cmdline);

} // namespace initbench
