// `initbench schema`: the results schema's generated definitions (host/reference/schema_defs.h).
#pragma once

#include <CLI/CLI.hpp>

namespace initbench {

void add_schema_command(CLI::App& app);

} // namespace initbench
