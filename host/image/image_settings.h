// The configuration an image's init will apply, worked out on the host before the boot:
// the image's embedded profiles and packed experiment file under the kernel parameters,
// through the same layers the init uses (common/settings_layers.h). `initbench run` sizes
// QEMU from its machine.* keys.
#pragma once

#include "common/config.h"
#include "common/machine.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

// Errors (a bad key, an unknown profile) are the init's to report: it prints them as error
// records. An image that cannot be read gives the defaults under the parameters.
ConfigResult image_settings(const std::string& image, const std::vector<std::string>& params);
// The same, with `experiment` in place of any experiment file the image has: how
// `initbench pack --config` checks a file before packing it.
ConfigResult image_settings(const std::string& image, const std::vector<std::string>& params,
                            const std::optional<std::string>& experiment);

// Everything the init would refuse in this configuration, found on the host before a boot:
// the keys and values (image_settings' errors) and the loads that `phases` names (the init's
// own phase_loads()). Empty when the init would take it all.
std::vector<ConfigError> check_settings(const std::string& image, const std::vector<std::string>& params,
                                        const std::optional<std::string>& experiment = std::nullopt);

// What QEMU is given, and where each value came from: "--cpus"/"--memory", a profile
// ("profile:NAME"), the command line ("cmdline"), or "default".
struct MachineChoice {
    unsigned cpus = 1;
    unsigned memory_mb = 1024;
    std::optional<Topology> topology; // QEMU's -smp sockets/cores/threads
    std::string cpus_source = "default", memory_source = "default", topology_note;
};

// The command line's --cpus/--memory (when given) win over the experiment's machine.*.
MachineChoice choose_machine(const Config& config, std::optional<unsigned> cli_cpus,
                             std::optional<unsigned> cli_memory_mb);
// The results' host.machine.
nlohmann::json machine_facts(const MachineChoice& m);

} // namespace initbench
