// The experiment's configuration as PID 1 sees it: /proc/cmdline over a payload's experiment
// file (/payload/experiment.conf, added by `initbench pack --config`) over the embedded
// profiles in /etc/initbench/profiles over the defaults.
#pragma once

#include "common/config.h"

#include <optional>
#include <string>
#include <vector>

namespace initbench {

inline constexpr const char* kProfileDir = "/etc/initbench/profiles";
inline constexpr const char* kExperimentFile = "/payload/experiment.conf";
// The experiment file takes part as the profile of this name, which includes the profile
// the command line names (else the file's own include, else "default").
inline constexpr const char* kExperimentProfile = "payload";

ConfigResult load_settings(const std::string& cmdline);

// load_settings() without the file system: `experiment` is the experiment file's text.
ConfigResult settings_from(const std::string& cmdline, const ProfileLookup& profiles,
                           std::vector<std::string> available,
                           const std::optional<std::string>& experiment);

} // namespace initbench
