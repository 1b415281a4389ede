// Registers `initbench ab` (host/engine/ab.h runs it).
#pragma once

#include <CLI/CLI.hpp>

namespace initbench {

void add_ab_command(CLI::App& app);

} // namespace initbench
