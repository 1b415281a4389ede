// One step of a bisection at the commit checked out: plan, build, boot, judge one metric
// against a baseline (results files, or a good kernel booted beside it) or a threshold; and
// the good end's boots that become a bisection's baseline.
#pragma once

#include "host/compare/bisect_decide.h"
#include "host/engine/step_boots.h"

#include "host/boot/boot_backend.h"

#include <optional>
#include <string>
#include <vector>

namespace initbench {

// What a step is judged against, checked before the build: a bad command line aborts the
// bisection.
struct StepPlan {
    std::vector<RunFile> baseline;
    bool paired = false;  // baseline[i] was booted beside step i (--baseline-kernel)
    double bad_pct = 0;   // baseline mode: the limit, signed the bad way
    double threshold = 0; // threshold mode
    int bad_sign = 0;
};

// One step at the commit checked out: build, boot, judge; its exit code for git bisect run.
int run_step(BisectCli& cli, const char* argv0);

// A step's boots and decision once it is built and planned: --boots boots of `step` (and of
// `baseline` beside them, interleaved), then one more while undecided up to --max-boots,
// each look at the level alpha spending allows. Its exit code for git bisect run.
int drive_step(const BisectCli& cli, const StepPlan& plan, BootBackend& backend, RunOptions step,
               std::optional<RunOptions> baseline);

// The good end's boots that become the baseline: build, then `count` boots saved in
// cli.save_dir as good-NNN-bootB.json, their paths in `saved`. kBisectGood, or the exit code
// of what failed (it has said why).
int boot_baseline(BisectCli& cli, const char* argv0, unsigned count, std::vector<std::string>& saved);

} // namespace initbench
