#include "host/cli/ab_cli.h"

#include "host/cli/boot_cli.h"
#include "host/cli/subcommand.h"
#include "host/compare/compare_render.h"
#include "host/engine/ab.h"
#include "host/engine/ab_plan.h"

#include <memory>

namespace initbench {
namespace {

constexpr const char* kAbHelp = R"(Sides: --kernel and --params, each given once (the same for every side) or once per
side; --label names them (default A, B, ...). Parameters after -- go to every side.
  initbench ab -o out --kernel vmlinuz --params '' --params 'slub_debug=FZPU' -- initbench.phases=fork
  initbench ab -o out --kernel old/bzImage --kernel new/bzImage --clock icount -- nokaslr norandmaps

The boots are interleaved (A B B A ...) and run --jobs at a time, each pinned to host CPUs
of its own (on the wall clock one at a time, all on the same CPUs: host CPUs can differ in
speed; with -j N there, each side's boots go round the N slots alike, the permutation test
permutes within each slot's CPUs, and the looks wait for multiples of N boots a side). After every boot a side from --min-boots on, each chosen metric (--metric; default
every phase metric) is judged as compare judges it (--method auto: Welch's t-test under
icount, the permutation test on the wall clock), one sample per boot, at the level alpha
spending allows at that look.
ab stops when each is SAME or DIFFERENT, or at --max-boots a side with UNKNOWN and the
change it could detect. OUT gets runs/ (every boot's results and console), comparison.json,
comparison.txt and report.html. Ctrl-C keeps what finished; the same command resumes.

Exit codes:
  0    every chosen metric is SAME or DIFFERENT
  1    a boot failed (error records, timeout, boot failure), or an output could not be
       written: its file is named
  2    bad command line, or OUT holds another experiment
  3    compare refused the sides (different clocks, or experiments without --force)
  4    --max-boots reached with a metric still UNKNOWN
  130  interrupted)";

} // namespace

void add_ab_command(CLI::App& app) {
    auto cli = std::make_shared<AbCli>();
    auto* cmd = app.add_subcommand("ab", "Boot two or more sides interleaved until each metric is SAME or DIFFERENT");
    cmd->footer(kAbHelp);
    cmd->add_option("-o,--out", cli->out_dir, "Output directory (a rerun with it resumes)")->required();
    cmd->add_option("--kernel", cli->kernels, "Kernel image: once, or once per side")->allow_extra_args(false);
    cmd->add_option("--params", cli->side_params, "A side's kernel parameters, one string: once per side")
        ->allow_extra_args(false);
    cmd->add_option("--label", cli->labels, "A side's name: once per side (default A, B, ...)")
        ->allow_extra_args(false);
    cmd->add_option("--metric", cli->metrics, "Glob of a metric to decide (repeatable; default every phase metric)")
        ->allow_extra_args(false);
    add_boot_options(*cmd, cli->boot);
    cmd->add_option("--min-boots", cli->min_boots,
                    "Boots a side before the first look (default: 2 for Welch's test; for the "
                    "permutation test the fewest at which it can find a change, 5 up to 10 a side)");
    cmd->add_option("--max-boots", cli->max_boots, "Boots a side at most (the budget)")
        ->check(CLI::Range(2, 1000))->capture_default_str();
    cmd->add_option("-j,--jobs", cli->jobs, "Boots at once, each on host CPUs of its own (default: under --clock icount host "
                    "cores / guest CPUs; on the wall clock 1, and more there are balanced over the sides)")->check(CLI::Range(1, 256));
    cmd->add_option("--method", cli->method,
                    "auto: welch under --clock icount, permutation on the wall clock; or welch, "
                    "permutation, lkp, paired (boot i of each side against boot i of the first, "
                    "booted one after the other: the host's drift between pairs stays out)")
        ->check(CLI::IsMember(names_of(compare_render::kMethodNames, {Method::threshold})))
        ->capture_default_str();
    cmd->add_option("--confidence", cli->confidence, "1 - the error rate promised over all looks")
        ->check(CLI::Range(0.5, 0.9999))->capture_default_str();
    cmd->add_option("--min-effect", cli->min_effect_pct, "Percent: smaller changes are SAME")
        ->check(CLI::Range(0.0, 1000.0))->capture_default_str();
    cmd->add_flag("--force", cli->force,
                  "Compare sides whose initbench.* settings differ (different experiments, refused otherwise)");
    cmd->add_option("params", cli->params, "Kernel parameters for every side, after --");
    cmd->callback([cli] { run_subcommand("ab", kAbUsage, [&] { return run_ab(*cli); }); });
}

} // namespace initbench
