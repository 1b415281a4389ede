#include "host/cli/bisect.h"

#include "host/cli/boot_cli.h"
#include "host/engine/bisect_step.h"

#include <exception>
#include <string>
#include <vector>

namespace initbench {
namespace {

constexpr const char* kBisectFooter =
    R"(Use: git bisect run initbench bisect-step [options] -- BUILD COMMAND...
The build command runs as an argument vector (never through a shell; --build-shell runs a
shell string you give). Then the kernel is booted --boots times with the kernel parameters
of --params-file and --param, and the metric is judged with compare's verdict: DIFFERENT
the bad way is bad, SAME or better is good, and so is a change shown not worse than the
limit by the one-sided test; otherwise a skip. --max-boots boots again while
undecided (alpha spending keeps --confidence). --baseline-kernel boots a good kernel beside
each step, interleaved, and judges against those boots: a drifting host moves both alike.
Then the pairs' log ratios decide too, by their 20 % trimmed mean (the paired test): a step
is good when it shows them above the limit (below it for a rise), bad when it shows them
beyond and so does a test of no assumed shape (DIFFERENT, or the pairs' signed ranks), so
that one boot a stalled host slowed holds no good step back, a burst of load over a step's
boots makes no good step bad, and a host that slows down during a step still lets a bad
one be shown.

Exit codes (for git bisect run):
  0    good
  1    bad
  125  skip: the build failed, a boot failed, the metric is missing, or too noisy to decide
  128  abort: bad command line, unusable --baseline files, or an experiment unlike the baseline's
  130  abort: interrupted)";

} // namespace

void add_step_options(CLI::App& sub, BisectCli& cli) {
    sub.add_option("--kernel", cli.kernel, "The kernel image the build leaves (bzImage, or arm64 Image)")
        ->required();
    sub.add_option("--params-file", cli.params_file,
                   "File of kernel parameters (initbench.* and others), read after the build");
    // One value per use, so that a build command after them is never taken for a value.
    sub.add_option("--param", cli.params, "One more kernel parameter (repeatable)")
        ->allow_extra_args(false);
    sub.add_option("--metric", cli.metric, "Glob naming one metric, e.g. fork/ops_per_s")
        ->required();
    sub.add_option("--baseline", cli.baseline, "Results file(s) of a good kernel")
        ->delimiter(',')
        ->allow_extra_args(false);
    sub.add_option("--baseline-kernel", cli.baseline_kernel,
                   "A good kernel booted beside each step, interleaved; its boots are the baseline "
                   "(--baseline still names the experiment, clock and metric)");
    sub.add_option("--baseline-params-file", cli.baseline_params_file,
                   "The baseline kernel's parameters (default: the step's)");
    sub.add_option("--max-change", cli.max_change,
                   "-N% or +N% against the baseline is bad (unsigned: the metric's worse way; 10%)");
    sub.add_option("--threshold", cli.threshold,
                   "<N or >N: the bad side of an absolute value (unsigned: the worse way)");
    sub.add_option("--boots", cli.boots, "Boots per step")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    sub.add_option("--max-boots", cli.max_boots,
                   "Boot again while undecided, up to this many boots (alpha spending keeps --confidence)")
        ->check(CLI::Range(1, 100));
    cli.boot.clock = ""; // none given: the baseline's
    add_boot_options(sub, cli.boot);
    sub.add_option("--confidence", cli.confidence, "Confidence of the intervals")
        ->check(CLI::Range(0.5, 0.9999))
        ->capture_default_str();
    sub.add_option("--build-shell", cli.build_shell, "Build with /bin/sh -c STRING instead");
    sub.add_option("--build-timeout", cli.build_timeout_s, "Seconds the build may take")
        ->check(CLI::Range(1.0, 604800.0))
        ->capture_default_str();
    sub.add_option("--save-dir", cli.save_dir, "Keep every boot's results document here");
    sub.add_flag("--progress", cli.progress, "Echo the guest's console to stderr");
    sub.add_flag("--strict", cli.strict,
                 "Abort when the step's kernel parameters besides initbench.* differ from the baseline's");
}

namespace {

int parse_and_run(const std::vector<std::string>& remaining) {
    BisectCli cli;
    CLI::App sub{"initbench bisect-step: one step of git bisect run", "initbench bisect-step"};
    sub.footer(kBisectFooter);
    add_step_options(sub, cli);
    sub.add_option("build", cli.build, "The build command, after --");
    std::vector<std::string> args(remaining.rbegin(), remaining.rend()); // CLI11 pops from the back
    try {
        sub.parse(args);
    } catch (const CLI::ParseError& e) {
        return sub.exit(e) == 0 ? kBisectGood : kBisectAbort;
    }
    try {
        return run_step(cli, "initbench");
    } catch (const std::exception& e) {
        bisect_say(std::string("abort: ") + e.what());
        return kBisectAbort;
    }
}

} // namespace

void add_bisect_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("bisect-step",
                                   "One step of git bisect run: build, boot, judge a metric");
    // Everything after the subcommand goes to parse_and_run's own parser.
    cmd->prefix_command();
    cmd->set_help_flag();
    cmd->footer("Run 'initbench bisect-step --help' for its options.");
    cmd->callback([cmd] {
        if (int rc = parse_and_run(cmd->remaining()); rc != kBisectGood)
            throw CLI::RuntimeError(rc);
    });
}

} // namespace initbench
