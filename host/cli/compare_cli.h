// Registers `initbench compare`.
#pragma once

namespace CLI {
class App;
}

namespace initbench {

// It runs as a callback during parsing and reports a nonzero exit code by throwing
// CLI::RuntimeError(code), as the CLI's other callback subcommands do.
void add_compare_command(CLI::App& app);

} // namespace initbench
