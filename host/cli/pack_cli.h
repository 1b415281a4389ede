// Registers `initbench pack` (host/image/pack.h does the packing); it exits with 0, 1
// (failed) or 2 (bad command line).
#pragma once

namespace CLI {
class App;
}

namespace initbench {

void add_pack_command(CLI::App& app);

} // namespace initbench
