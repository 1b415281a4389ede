// Registers `initbench run` (boot a kernel in QEMU with the image and check what it printed)
// and `initbench parse` (check a console log captured elsewhere). Both end in one results
// document and the summary, and exit with the verdict's code (main's --help lists them).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace initbench {

// Run as callbacks during parsing; a nonzero exit code is thrown as CLI::RuntimeError(code).
// `argv0` finds the image installed beside the program.
void add_run_command(CLI::App& app, const std::string& argv0);
void add_parse_command(CLI::App& app);

} // namespace initbench
