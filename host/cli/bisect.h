// `initbench bisect-step` for `git bisect run`: its command line (host/engine/bisect_step.h
// builds, boots and decides).
#pragma once

#include <CLI/CLI.hpp>

namespace initbench {

struct BisectCli;

// Registers `bisect-step`. It runs as a callback during parsing and reports a nonzero exit
// code by throwing CLI::RuntimeError(code); it parses its own arguments so that even a bad
// command line exits >= 128 (2 would tell git bisect "bad").
void add_bisect_command(CLI::App& app);

// bisect-step's options, but the build command: `initbench bisect` takes the same.
void add_step_options(CLI::App& sub, BisectCli& cli);

} // namespace initbench
