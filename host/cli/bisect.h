// `initbench bisect-step` for `git bisect run`: build, boot R times, decide good/bad/skip
// from one metric against a baseline results file or a threshold.
#pragma once

#include "host/cli/bisect_decide.h"

#include <CLI/CLI.hpp>

namespace initbench {

// Registers `bisect-step`. It runs as a callback during parsing and reports a nonzero exit
// code by throwing CLI::RuntimeError(code); it parses its own arguments so that even a bad
// command line exits >= 128 (2 would tell git bisect "bad").
void add_bisect_command(CLI::App& app);

} // namespace initbench
