// Registers `initbench export`.
#pragma once

namespace CLI {
class App;
}

namespace initbench {

// Runs as a callback during parsing; a nonzero exit code is thrown as CLI::RuntimeError.
void add_export_command(CLI::App& app);

} // namespace initbench
