// bisect-step's boots: the command line, the build, and the step's (and the baseline
// kernel's) boots, each saved and checked before its numbers are used.
#pragma once

#include "common/result.h"
#include "host/boot/boot.h"
#include "host/boot/boot_backend.h"
#include "host/engine/boot_plan.h"
#include "host/compare/compare.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace initbench {

struct BisectCli {
    std::string kernel, params_file, metric, max_change, threshold, build_shell, save_dir;
    std::string baseline_kernel, baseline_params_file; // the good kernel booted beside each step
    BootOptions boot; // its clock "" until plan(): the baseline's, else wall
    std::vector<std::string> params, baseline, build;
    unsigned boots = 1, max_boots = 0;
    double build_timeout_s = 6 * 3600, confidence = 0.95;
    bool progress = false, strict = false;
};

// One line of the step's account on stdout ("bisect-step: ...").
void bisect_say(const std::string& line);

// Runs the build command: kBisectGood, a skip naming why it failed, or interrupted.
int run_build(const BisectCli& cli);

// --baseline-kernel's boot, planned with its parameters (the step's, unless
// --baseline-params-file gives them); none without --baseline-kernel.
Result<std::optional<RunOptions>> plan_baseline_boot(const BisectCli& cli, const std::vector<std::string>& params,
                                                     const char* argv0);

// --save-dir's files: DIR/LABEL-NNN-bootB.json ("step" or "baseline"), NNN one number for
// every boot of a step: the first that no earlier step's first boot took.
std::string step_save_path(const std::string& dir, const char* label, unsigned step, unsigned boot);
unsigned next_step_number(const std::string& dir);

// A step's boots, and with --baseline-kernel the good kernel's beside them in the order
// B S, S B, B S, ...: a host whose speed drifts during the step moves both sides alike, and
// those boots, not the --baseline files' numbers, are the baseline.
struct StepBoots {
    StepBoots(const BisectCli& cli, BootBackend& backend, RunOptions step, std::optional<RunOptions> baseline,
              const char* label = "step")
        : cli(cli), backend(backend), step(std::move(step)), baseline(std::move(baseline)), label(label) {}

    const BisectCli& cli;
    BootBackend& backend; // boots in this process, or a test's fake
    RunOptions step;
    std::optional<RunOptions> baseline;
    const char* label; // the step's files in --save-dir: LABEL-NNN-bootB.json
    std::vector<RunFile> steps, bases;
    std::vector<std::string> saved; // the step's files written, in order

    // One more boot of the step, and one of the baseline kernel when there is one: kBisectGood,
    // or the skip or abort a failed boot ends the step with (it has said why).
    int pair();

private:
    int one(bool of_baseline);
    unsigned number = 0; // the step's NNN in --save-dir, chosen at its first boot
};

} // namespace initbench
