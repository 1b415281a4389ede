#include "host/engine/bisect_step.h"

#include "common/text.h"
#include "host/base/process.h"
#include "host/boot/boot.h"
#include "host/boot/boot_files.h"
#include "host/engine/ab_plan.h"
#include "host/engine/step_boots.h"
#include "host/engine/bisect_inputs.h"
#include "host/engine/boot_plan.h"
#include "host/compare/compare.h"
#include "host/compare/compare_checks.h"
#include "host/compare/compare_render.h"
#include "host/compare/sequential.h"
#include "host/compare/step_budget.h"
#include "host/image/settings_check.h"
#include "host/image/image_paths.h"
#include "host/results/results.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace initbench {
namespace {

namespace fs = std::filesystem;

using Plan = StepPlan;

// What a plan is for: a step (against --baseline or --threshold), or the good end's boots
// that become a bisection's baseline (`initbench bisect`), when there is none yet.
enum class PlanFor { step, baseline };

// Whether the baseline and the boot budget can ever decide a step at the limit, before the
// first build: a setup that cannot would skip every commit, and git bisect would give up
// only once it had built and booted them all. Against --baseline-kernel's pairs, whether the
// budget holds enough pairs for the paired test.
Status can_decide(const BisectCli& cli, const Plan& p, const Series& metric) {
    const bool deterministic = cli.boot.clock == "icount";
    const unsigned most = std::max(cli.boots, cli.max_boots);
    if (!cli.baseline_kernel.empty()) {
        const unsigned pairs = deterministic ? 2 : 3;
        if (most < pairs)
            return Error{"this setup cannot decide: the paired test of --baseline-kernel's boots "
                         "needs " + std::to_string(pairs) + " pairs on the " + cli.boot.clock +
                         " clock, and a step boots at most " + std::to_string(most) +
                         "; give --max-boots " + std::to_string(pairs) + " or more"};
        return ok();
    }
    auto boots = test_samples(metric, SampleUnit::run);
    if (!boots)
        return Error{"baseline: " + metric.id + ": " + boots.error().message()};
    StepBudget budget;
    budget.limit_pct = p.bad_pct;
    budget.boots = cli.boots;
    budget.max_boots = most;
    budget.confidence = cli.confidence;
    budget.deterministic = deterministic;
    const StepReach reach = step_reach(boots.value(), budget);
    if (reach.decides)
        return ok();
    return Error{"this setup cannot decide " + metric.id + ": " + reach.why + "; " + reach.advice};
}

Result<Plan> plan(BisectCli& cli, const char* argv0, PlanFor use) {
    Plan p;
    if (use == PlanFor::step && cli.baseline.empty() == cli.threshold.empty())
        return Error{"give either --baseline (with --max-change) or --threshold"};
    if (cli.build.size() && !cli.build_shell.empty())
        return Error{"give the build as a command after -- or as --build-shell, not both"};
    if (!cli.baseline_kernel.empty() && cli.baseline.empty())
        return Error{"--baseline-kernel goes with --baseline (its results name the experiment and metric)"};
    if (!cli.baseline_params_file.empty() && cli.baseline_kernel.empty())
        return Error{"--baseline-params-file goes with --baseline-kernel"};
    if (!cli.baseline_kernel.empty())
        if (auto s = check_kernel_file(cli.baseline_kernel, cli.boot.arch); !s)
            return Error{"--baseline-kernel " + cli.baseline_kernel + ": " + s.error().message()};
    std::optional<Series> base_metric;
    if (!cli.baseline.empty()) {
        auto runs = load_baseline(cli.baseline);
        if (!runs)
            return Error{"baseline: " + runs.error().message()};
        p.baseline = std::move(runs.value());
        const std::string base_clock = p.baseline[0].clock;
        if (cli.boot.clock.empty())
            cli.boot.clock = base_clock == "icount" ? "icount" : "wall";
        else if (cli.boot.clock != base_clock)
            return Error{"the baseline ran on the " + base_clock + " clock, this step on " +
                         cli.boot.clock + ": their figures cannot be compared"};
        auto m = find_metric(p.baseline, cli.metric);
        if (!m)
            return Error{"baseline: " + m.error().message()};
        base_metric = m.value();
    }
    if (cli.boot.clock.empty())
        cli.boot.clock = "wall";
    // The image, the guest's size and the clock as the command line gives them; checked
    // again with the parameters file after each build.
    if (auto run = plan_boot(cli.boot, cli.params, argv0); !run)
        return run.error();
    if (base_metric) {
        auto amount = signed_amount(cli.max_change.empty() ? "10%" : cli.max_change, true);
        if (!amount || amount->first < 0)
            return Error{"--max-change '" + cli.max_change + "': expected e.g. -10% or +10%"};
        int sign = amount->second;
        if (sign == 0 && base_metric->better == Better::unknown)
            return Error{base_metric->id + " does not say whether higher is better: give "
                                           "--max-change a sign (-N% or +N%)"};
        if (sign == 0)
            sign = base_metric->better == Better::higher ? -1 : 1;
        p.bad_pct = sign * amount->first;
        if (p.bad_pct <= -100)
            return Error{"--max-change '" + cli.max_change +
                         "': a fall of 100 % or more cannot happen"};
    } else if (use == PlanFor::step) {
        auto amount = signed_amount(cli.threshold, false);
        if (!amount)
            return Error{"--threshold '" + cli.threshold + "': expected e.g. <50 or >2000"};
        p.threshold = amount->first;
        p.bad_sign = amount->second;
    }
    if (base_metric)
        if (auto can = can_decide(cli, p, base_metric.value()); !can)
            return can.error();
    return p;
}

// A step planned, built and ready to boot.
struct Prepared {
    Plan plan;
    RunOptions run;
    std::optional<RunOptions> base_run;
};

// The step's decision on its runs so far at `confidence`; final when more boots cannot
// change it.
StepDecision judge_step(const BisectCli& cli, const Plan& p, const std::vector<RunFile>& runs,
                        double confidence) {
    auto final = [](int code, std::string why) { return StepDecision{code, std::move(why), true}; };
    auto metric = find_metric(runs, cli.metric);
    if (!metric)
        return final(kBisectSkip, "skip: " + metric.error().message() + " in this kernel's results");
    const bool deterministic = cli.boot.clock == "icount";
    const std::string id = metric.value().id;
    auto figures = [&](StepDecision d) {
        if (!d.final)
            d.why = id + " [" + cli.boot.clock + "]: " + d.why;
        return d;
    };
    if (!p.baseline.empty())
        return figures(
            judge_runs(p.baseline, runs, id, p.bad_pct, confidence, deterministic, p.paired));
    int sign = p.bad_sign;
    if (sign == 0 && metric.value().better == Better::unknown)
        return final(kBisectAbort, "abort: " + id + " does not say whether higher is better: write "
                                                    "the threshold as <N or >N");
    if (sign == 0)
        sign = metric.value().better == Better::higher ? -1 : 1;
    auto samples = test_samples(metric.value(), runs.size() >= 2 ? SampleUnit::run : SampleUnit::round);
    if (!samples)
        return final(kBisectSkip, "skip: " + id + ": " + samples.error().message());
    return figures(decide_against_threshold(samples.value(), p.threshold, sign, confidence, deterministic));
}

// Kernel parameters besides initbench.* change the kernel under test: a step that differs
// from its baseline there measures more than the commit. A warning, or false under --strict.
bool parameters_agree(const BisectCli& cli, const RunFile& base, const RunFile& step) {
    const std::string base_params = kernel_params(base.cmdline);
    const std::string step_params = kernel_params(step.cmdline);
    if (base_params == step_params)
        return true;
    std::string diff = "this step's kernel parameters besides initbench.* are '" + step_params +
                       "', the baseline's '" + base_params + "'";
    if (cli.strict) {
        bisect_say("abort: " + diff + " (--strict)");
        return false;
    }
    bisect_say("warning: " + diff + ": the change may be theirs (--strict refuses)");
    return true;
}

// The step's last words: the other work on the host beside its boots, if there was much, and
// its decision.
int conclude(const StepBoots& boots, const StepDecision& decision) {
    if (auto busy = busy_host_warning({Side{"the step", boots.steps}, Side{"the baseline kernel", boots.bases}});
        !busy.empty())
        bisect_say("warning: " + busy);
    if (!decision.why.empty())
        bisect_say(decision.why);
    return decision.exit_code;
}

// The kernel into a planned boot, as it boots (choose_kernel_boot); false, having said why
// the step is skipped, when it cannot boot as asked.
bool ready_to_boot(const BisectCli& cli, const std::string& kernel, RunOptions& run) {
    auto kernel_boot = choose_kernel_boot(kernel, cli.boot.arch, boot_mode(cli.boot.boot), run.cache_dir);
    if (!kernel_boot) {
        bisect_say("skip: " + kernel_boot.error().message());
        return false;
    }
    run.kernel_boot = std::move(kernel_boot.value());
    run.boot.kernel = kernel;
    run.echo = cli.progress;
    return true;
}

// A step up to its first boot: the plan, the build, the kernel it left, the parameters and
// both boots planned, the boots pinned. kBisectGood when ready to boot, else the exit code.
int prepare(BisectCli& cli, const char* argv0, const PlanFor use, Prepared& out) {
    auto planned = plan(cli, argv0, use);
    if (!planned) {
        bisect_say("abort: " + planned.error().message());
        return kBisectAbort;
    }
    out.plan = std::move(planned.value());
    if (int rc = run_build(cli); rc != kBisectGood)
        return rc;
    std::error_code ec;
    if (!fs::is_regular_file(cli.kernel, ec)) {
        bisect_say("skip: no kernel at " + cli.kernel + " after the build");
        return kBisectSkip;
    }
    if (auto s = check_kernel_file(cli.kernel, cli.boot.arch); !s) {
        bisect_say("skip: the build left no kernel QEMU can boot: " + s.error().message());
        return kBisectSkip;
    }
    std::vector<std::string> params;
    if (!cli.params_file.empty()) {
        auto words = read_params(cli.params_file);
        if (!words) {
            bisect_say("skip: cannot read the parameters file: " + words.error().message());
            return kBisectSkip;
        }
        params = std::move(words.value());
    }
    params.insert(params.end(), cli.params.begin(), cli.params.end());
    auto run = plan_boot(cli.boot, params, argv0);
    if (!run) {
        bisect_say("abort: " + run.error().message());
        return kBisectAbort;
    }
    if (!settings_accepted("bisect-step", run.value().boot.image, params, "", run.value().boot.cpus)) {
        bisect_say("abort: the experiment's parameters are wrong at every commit");
        return kBisectAbort;
    }
    auto base_run = plan_baseline_boot(cli, params, argv0);
    if (!base_run) {
        bisect_say("abort: " + base_run.error().message());
        return kBisectAbort;
    }
    // Every boot on the same host CPUs, as ab's: CPUs of one host can differ in speed for
    // hours (one of two ran 40 % slower), and a boot left to float lands on either. After the
    // build, which keeps them all.
    if (const auto slot = host_cpu_slots(1, run.value().boot.cpus, allowed_host_cpus())[0]; !slot.empty())
        if (auto pinned = pin_to_host_cpus(slot); !pinned)
            bisect_say("warning: the boots are not pinned to host CPUs: " + pinned.error().message());
    out.run = std::move(run.value());
    out.base_run = std::move(base_run.value());
    // Each bzImage is extracted once (cached by its SHA-256); its boots share the vmlinux.
    if (!ready_to_boot(cli, cli.kernel, out.run) ||
        (out.base_run && !ready_to_boot(cli, cli.baseline_kernel, *out.base_run)))
        return kBisectSkip;
    return kBisectGood;
}

} // namespace

int run_step(BisectCli& cli, const char* argv0) {
    Prepared ready;
    if (int rc = prepare(cli, argv0, PlanFor::step, ready); rc != kBisectGood)
        return rc;
    auto backend = in_process_boot_backend();
    return drive_step(cli, ready.plan, *backend, std::move(ready.run), std::move(ready.base_run));
}

int drive_step(const BisectCli& cli, const StepPlan& plan, BootBackend& backend, RunOptions step,
               std::optional<RunOptions> baseline) {
    StepBoots boots{cli, backend, std::move(step), std::move(baseline)};
    for (unsigned i = 0; i < cli.boots; i++)
        if (int rc = boots.pair(); rc != kBisectGood)
            return rc;
    Plan judged = plan;
    judged.paired = boots.baseline.has_value();
    if (boots.baseline)
        judged.baseline = boots.bases;
    if (!judged.baseline.empty() && !parameters_agree(cli, judged.baseline[0], boots.steps[0]))
        return kBisectAbort;
    // --max-boots: one more boot while undecided, each look at the level alpha spending
    // allows (host/compare/sequential.h), so that stopping early keeps --confidence.
    SequentialPlan looks;
    looks.min_boots = cli.boots;
    looks.max_boots = std::max(cli.boots, cli.max_boots);
    looks.alpha = 1 - cli.confidence;
    for (;;) {
        const Look look = look_at(looks, boots.steps.size());
        StepDecision d = judge_step(cli, judged, boots.steps, 1 - look.alpha);
        if (d.final || d.exit_code != kBisectSkip || boots.steps.size() >= looks.max_boots)
            return conclude(boots, d);
        bisect_say("look " + std::to_string(look.number) + " of " + std::to_string(looks.looks()) +
                   ": " + d.why + "; one more boot" + (boots.baseline ? " of each" : ""));
        if (int rc = boots.pair(); rc != kBisectGood)
            return rc;
        if (boots.baseline)
            judged.baseline = boots.bases;
    }
}

int boot_baseline(BisectCli& cli, const char* argv0, unsigned count, std::vector<std::string>& saved) {
    Prepared ready;
    if (int rc = prepare(cli, argv0, PlanFor::baseline, ready); rc != kBisectGood)
        return rc;
    auto backend = in_process_boot_backend();
    StepBoots boots{cli, *backend, std::move(ready.run), std::nullopt, "good"};
    for (unsigned i = 0; i < count; i++)
        if (int rc = boots.pair(); rc != kBisectGood)
            return rc;
    saved = boots.saved;
    return kBisectGood;
}

} // namespace initbench
