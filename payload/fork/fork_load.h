// The fork load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/fork/fork.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec fork_keys[] = {
    shown_as("fork_spin_us",
             uint_key("fork.spin_us", "0", 0, 1000000,
                      "fork load: microseconds each worker also spins per operation "
                      "(CLOCK_MONOTONIC): a known "
                      "cost, to measure how well compare and ab find a change of a given size")),
};

inline constexpr LoadDecl fork_declaration = {
    .name = "fork", .op_unit = "fork+exit+wait", .keys = fork_keys,
    .help = "workers that fork a child which exits immediately, and reap it; fork.spin_us=N adds "
            "N us of spinning to each operation"};

} // namespace initbench
