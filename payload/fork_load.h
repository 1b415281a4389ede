// The fork load's declaration, which the host builds too: its name and its keys. Its worker,
// its parameters and its LoadSpec are payload/fork.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline std::vector<KeySpec> fork_keys() {
    return {}; // `workers` only
}

inline constexpr LoadDecl fork_declaration = {"fork", fork_keys};

} // namespace initbench
