// One step of a bisection at the commit checked out: plan, build, boot, judge one metric
// against a baseline (results files, or a good kernel booted beside it) or a threshold; and
// the good end's boots that become a bisection's baseline.
#pragma once

#include "host/compare/bisect_decide.h"
#include "host/engine/step_boots.h"

#include <string>
#include <vector>

namespace initbench {

// One step at the commit checked out: build, boot, judge; its exit code for git bisect run.
int run_step(BisectCli& cli, const char* argv0);

// The good end's boots that become the baseline: build, then `count` boots saved in
// cli.save_dir as good-NNN-bootB.json, their paths in `saved`. kBisectGood, or the exit code
// of what failed (it has said why).
int boot_baseline(BisectCli& cli, const char* argv0, unsigned count, std::vector<std::string>& saved);

} // namespace initbench
