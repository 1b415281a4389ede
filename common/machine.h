// The machine an experiment was measured on, as a profile says it (machine.cpus,
// machine.memory_mb, machine.topology): the host sizes QEMU from it, and the init compares
// it with the machine it finds itself on (a lab board, or a QEMU given other sizes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace initbench {

class Config;

// SOCKETS:CORES:THREADS, as QEMU's -smp takes them: the scheduler sees an LLC domain per
// socket and an SMT domain per core when threads > 1.
struct Topology {
    unsigned sockets = 1, cores = 1, threads = 1;
    uint64_t cpus() const { return uint64_t(sockets) * cores * threads; }
    std::string text() const;
};

std::optional<Topology> parse_topology(std::string_view text);
// The machine.topology key's check: why the value is refused, empty if fine.
std::string check_topology(std::string_view text);

struct MachineWanted {
    unsigned cpus = 0;       // 0: not said
    unsigned memory_mb = 0;  // 0: not said
    std::optional<Topology> topology;
};

MachineWanted machine_wanted(const Config& config);
// Why machine.topology disagrees with machine.cpus, or "" when they agree (or one is unsaid).
std::string machine_conflict(const Config& config);

// Why this machine is not the one the experiment names (other CPU count, or memory outside
// what a kernel leaves of machine.memory_mb), or "" when it is, or when nothing is named.
std::string machine_mismatch(const Config& config, unsigned cpus_online, uint64_t memory_mb);

} // namespace initbench
