// The cpu load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/cpu/cpu.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec cpu_keys[] = {
    shown_as("cpu_load_pct",
             uint_key("cpu.load", "100", 1, 100,
                      "cpu load: percent of each 10 ms slice a worker spins, sleeping the rest "
                      "(stress-ng --cpu-load)")),
};

inline constexpr LoadDecl cpu_declaration = {
    .name = "cpu", .op_unit = "4096 iterations", .keys = cpu_keys,
    .help = "spinning workers: xorshift arithmetic and random writes to 256 KiB each; cpu.load=P "
            "spins P % of each 10 ms slice"};

} // namespace initbench
