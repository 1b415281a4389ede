// `initbench bisect-step` for `git bisect run`: build, boot R times, decide good/bad/skip
// from one metric against a baseline results file or a threshold.
#pragma once

#include "host/compare/bisect_decide.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace initbench {

struct BisectCli;

// Registers `bisect-step`. It runs as a callback during parsing and reports a nonzero exit
// code by throwing CLI::RuntimeError(code); it parses its own arguments so that even a bad
// command line exits >= 128 (2 would tell git bisect "bad").
void add_bisect_command(CLI::App& app);

// bisect-step's options, but the build command: `initbench bisect` takes the same.
void add_step_options(CLI::App& sub, BisectCli& cli);

// One step at the commit checked out: build, boot, judge; its exit code for git bisect run.
int run_step(BisectCli& cli, const char* argv0);

// The good end's boots that become the baseline: build, then `count` boots saved in
// cli.save_dir as good-NNN-bootB.json, their paths in `saved`. kBisectGood, or the exit code
// of what failed (it has said why).
int boot_baseline(BisectCli& cli, const char* argv0, unsigned count, std::vector<std::string>& saved);

} // namespace initbench
