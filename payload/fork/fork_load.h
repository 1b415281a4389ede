// The fork load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/fork/fork.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr LoadDecl fork_declaration = {
    .name = "fork", .op_unit = "fork+exit+wait",
    .help = "workers that fork a child which exits immediately, and reap it"};

} // namespace initbench
