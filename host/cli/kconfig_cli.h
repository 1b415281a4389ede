// Registers `initbench kconfig check` (host/lab/kconfig.h judges the .config): 0 every
// feature works, 1 some degrade, 2 a bad command line or .config, 3 it cannot boot.
#pragma once

namespace CLI {
class App;
}

namespace initbench {

void add_kconfig_command(CLI::App& app);

} // namespace initbench
