#include "host/image/image_settings.h"

#include "common/config.h"

#include "common/settings_layers.h"
#include "host/image/cpio_archive.h"
#include "payload/core/load.h"

namespace initbench {

ConfigResult image_settings(const std::string& image, const std::vector<std::string>& params) {
    return image_settings(image, params, std::nullopt);
}

ConfigResult image_settings(const std::string& image, const std::vector<std::string>& params,
                            const std::optional<std::string>& experiment_override) {
    const std::string dir = std::string(kProfileDir).substr(1) + "/";
    const std::string experiment_path = std::string(kExperimentFile).substr(1);
    const auto files = read_cpio_files(image, [&](const std::string& path) {
        return (path.starts_with(dir) && path.ends_with(".conf")) || path == experiment_path;
    });
    std::map<std::string, std::string> profiles;
    std::optional<std::string> experiment;
    if (files)
        for (const auto& [path, text] : *files) {
            if (path == experiment_path)
                experiment = text;
            else
                profiles[path.substr(dir.size(), path.size() - dir.size() - 5)] = text;
        }
    std::vector<std::string> available;
    for (const auto& [name, _] : profiles)
        available.push_back(name);
    auto lookup = [&](std::string_view name) -> std::optional<std::string> {
        auto it = profiles.find(std::string(name));
        return it == profiles.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    std::string cmdline; // as QEMU gives it to the kernel: a value with spaces quoted
    for (const auto& p : params)
        cmdline += cmdline_word(p) + " ";
    return settings_from(cmdline, lookup, available, experiment_override ? experiment_override : experiment);
}

std::vector<ConfigError> check_settings(const std::string& image, const std::vector<std::string>& params,
                                        const std::optional<std::string>& experiment) {
    ConfigResult settings = image_settings(image, params, experiment);
    for (auto& e : check_phases(settings.config))
        settings.errors.push_back(std::move(e));
    return settings.errors;
}

MachineChoice choose_machine(const Config& config, std::optional<unsigned> cli_cpus,
                             std::optional<unsigned> cli_memory_mb) {
    const MachineWanted wanted = machine_wanted(config);
    MachineChoice m;
    if (cli_cpus) {
        m.cpus = *cli_cpus, m.cpus_source = "--cpus";
    } else if (wanted.cpus) {
        m.cpus = wanted.cpus, m.cpus_source = config.source("machine.cpus");
    } else if (wanted.topology) {
        m.cpus = static_cast<unsigned>(wanted.topology->cpus()), m.cpus_source = config.source("machine.topology");
    }
    if (cli_memory_mb) {
        m.memory_mb = *cli_memory_mb, m.memory_source = "--memory";
    } else if (wanted.memory_mb) {
        m.memory_mb = wanted.memory_mb, m.memory_source = config.source("machine.memory_mb");
    }
    if (wanted.topology) {
        if (wanted.topology->cpus() == m.cpus)
            m.topology = wanted.topology;
        else
            m.topology_note = "machine.topology " + wanted.topology->text() + " is not " + std::to_string(m.cpus) +
                              " CPUs (" + m.cpus_source + "): QEMU gets a flat -smp " + std::to_string(m.cpus);
    }
    return m;
}

nlohmann::json machine_facts(const MachineChoice& m) {
    nlohmann::json j{{"cpus", m.cpus},
                     {"cpus_source", m.cpus_source},
                     {"memory_mb", m.memory_mb},
                     {"memory_source", m.memory_source}};
    if (m.topology)
        j["topology"] = m.topology->text();
    if (!m.topology_note.empty())
        j["topology_note"] = m.topology_note;
    return j;
}

} // namespace initbench
