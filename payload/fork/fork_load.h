// The fork load's declaration, which the host builds too: its name and its keys. Its worker,
// its parameters and its LoadSpec are payload/fork.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr LoadDecl fork_declaration = {"fork", {}}; // no keys of its own: `workers` only

} // namespace initbench
