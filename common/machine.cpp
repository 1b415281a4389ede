#include "common/machine.h"

#include "common/config.h"

#include <charconv>

namespace initbench {

std::string Topology::text() const {
    return std::to_string(sockets) + ":" + std::to_string(cores) + ":" + std::to_string(threads);
}

std::optional<Topology> parse_topology(std::string_view text) {
    unsigned v[3] = {};
    for (int i = 0; i < 3; i++) {
        const size_t end = i < 2 ? text.find(':') : text.size();
        if (end == std::string_view::npos)
            return std::nullopt;
        const std::string_view part = text.substr(0, end);
        auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v[i]);
        if (ec != std::errc() || p != part.data() + part.size() || v[i] == 0 || v[i] > 1024)
            return std::nullopt;
        text.remove_prefix(i < 2 ? end + 1 : end);
    }
    return Topology{v[0], v[1], v[2]};
}

std::string check_topology(std::string_view text) {
    if (!parse_topology(text))
        return "must be SOCKETS:CORES:THREADS, each 1 to 1024 (e.g. 2:4:2 for 16 CPUs)";
    return "";
}

MachineWanted machine_wanted(const Config& config) {
    MachineWanted m;
    m.cpus = static_cast<unsigned>(config.uint("machine.cpus"));
    m.memory_mb = static_cast<unsigned>(config.uint("machine.memory_mb"));
    m.topology = parse_topology(config.str("machine.topology"));
    return m;
}

std::string machine_conflict(const Config& config) {
    const MachineWanted m = machine_wanted(config);
    if (!m.topology || !m.cpus || m.topology->cpus() == m.cpus)
        return "";
    return m.topology->text() + " is " + std::to_string(m.topology->cpus()) + " CPUs, but machine.cpus is " +
           std::to_string(m.cpus);
}

std::string machine_mismatch(const Config& config, unsigned cpus_online, uint64_t memory_mb) {
    const MachineWanted m = machine_wanted(config);
    std::string why;
    if (m.cpus && m.cpus != cpus_online)
        why = "the experiment names a machine of " + std::to_string(m.cpus) + " CPUs (" +
              config.source("machine.cpus") + "); this one has " + std::to_string(cpus_online);
    // The kernel keeps some of the memory for itself: a fifth is more than any keeps.
    if (m.memory_mb && (memory_mb > m.memory_mb || memory_mb < m.memory_mb * 4 / 5))
        why += std::string(why.empty() ? "the experiment names a machine of " : "; and of ") +
               std::to_string(m.memory_mb) + " MiB (" + config.source("machine.memory_mb") + "); this one has " +
               std::to_string(memory_mb) + " MiB";
    return why.empty() ? why : why + ": its figures are not that machine's";
}

} // namespace initbench
