// The layers of an experiment's configuration, as PID 1 applies them and as the host works
// them out beforehand (`initbench run` sizing QEMU, `initbench pack` checking a file): the
// kernel command line over a payload's experiment file (/payload/experiment.conf, added by
// `initbench pack --config`) over the embedded profiles (/etc/initbench/profiles) over the
// defaults. No file access here: callers pass the texts in.
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

// `experiment` is the experiment file's text, if the image has one.
ConfigResult settings_from(const std::string& cmdline, const ProfileLookup& profiles,
                           std::vector<std::string> available,
                           const std::optional<std::string>& experiment);

} // namespace initbench
