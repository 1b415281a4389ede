// bisect-step's decisions on a step's samples against a baseline's or a threshold: one
// sample a side never decides, compare's verdict with the limit as its minimum effect, the
// one-sided test for a good step, and the wall clock's two boots a side. No QEMU.
#include "host/compare/bisect_decide.h"
#include "host/compare/step_budget.h"

#include "tests/unit/compare_fixture.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

TEST(BisectDecision, OneSampleASideNeverDecides) {
    for (bool deterministic : {true, false}) {
        StepDecision d = decide_against_baseline(V{210}, V{150}, -15, 0.95, deterministic);
        EXPECT_EQ(d.exit_code, kBisectSkip) << d.why;
        EXPECT_NE(d.why.find("no spread"), std::string::npos) << d.why;
    }
}

// The user's case: 3 rounds of baseline, one of the candidate, under icount. The baseline's
// spread (183.88 then 178.82, 178.84: the first round's effect) makes -3.39 % undecidable
// against a -2 % limit; far outside it, the single sample still decides.
TEST(BisectDecision, OneSampleIsJudgedByTheOtherSidesSpread) {
    V base{183.88, 178.82, 178.84};
    StepDecision d = decide_against_baseline(base, V{174.37}, -2, 0.95, true);
    EXPECT_EQ(d.exit_code, kBisectSkip) << d.why;
    EXPECT_NE(d.why.find("straddles"), std::string::npos) << d.why;
    EXPECT_EQ(decide_against_baseline(base, V{120}, -15, 0.95, true).exit_code, kBisectBad);
    EXPECT_EQ(decide_against_baseline(base, V{181}, -15, 0.95, true).exit_code, kBisectGood);
    // The other way round: one baseline sample, several of the step.
    EXPECT_EQ(decide_against_baseline(V{180}, base, -15, 0.95, true).exit_code, kBisectGood);
    // Not on the wall clock: rounds of one boot understate the noise between boots.
    EXPECT_EQ(decide_against_baseline(base, V{120}, -15, 0.95, false).exit_code, kBisectSkip);
}

// Two samples or more a side: compare's verdict with the limit as its minimum effect.
TEST(BisectDecision, DifferentTheBadWayIsBadSameIsGoodUnknownSkips) {
    V base = scaled(200), bad = scaled(140), good = scaled(199);
    StepDecision b = decide_against_baseline(base, bad, -15, 0.95, false);
    EXPECT_EQ(b.exit_code, kBisectBad) << b.why;
    EXPECT_NE(b.why.find("DIFFERENT, bad"), std::string::npos) << b.why;
    StepDecision g = decide_against_baseline(base, good, -15, 0.95, false);
    EXPECT_EQ(g.exit_code, kBisectGood) << g.why;
    EXPECT_NE(g.why.find("SAME (within +-15 %), good"), std::string::npos) << g.why;
    // Much faster is a change, the good way: good.
    StepDecision faster = decide_against_baseline(base, scaled(300), -15, 0.95, false);
    EXPECT_EQ(faster.exit_code, kBisectGood) << faster.why;
    EXPECT_NE(faster.why.find("DIFFERENT the good way"), std::string::npos) << faster.why;
    // Significant but smaller than the limit, and its interval inside it: SAME, good.
    EXPECT_EQ(decide_against_baseline(base, scaled(190), -15, 0.95, false).exit_code, kBisectGood);
    // Faster by a noisy amount: neither SAME within +-15 % nor DIFFERENT, but shown not worse
    // than -15 % by the one-sided test: good, and it says so.
    StepDecision not_worse = decide_against_baseline(base, V{170, 250, 200, 240, 190}, -15, 0.95, false);
    EXPECT_EQ(not_worse.exit_code, kBisectGood) << not_worse.why;
    EXPECT_NE(not_worse.why.find("not worse than -15.00% (the one-sided test, p = 0.0289"), std::string::npos)
        << not_worse.why;
    // The same spread about a slowdown near the limit: not shown either way, a skip.
    V noisy{120, 200, 160, 240, 130};
    StepDecision d = decide_against_baseline(base, noisy, -15, 0.95, false);
    EXPECT_EQ(d.exit_code, kBisectSkip) << d.why;
    EXPECT_NE(d.why.find("undecided (skip; more boots decide): n = 5 a side detects changes of >="),
              std::string::npos)
        << d.why;
    // A rise is bad for a latency: +20 % limit.
    EXPECT_EQ(decide_against_baseline(scaled(100), scaled(150), 20, 0.95, false).exit_code,
              kBisectBad);
    EXPECT_EQ(decide_against_baseline(V{0, 0}, V{1, 1}, -15, 0.95, true).exit_code, kBisectAbort);
    EXPECT_NE(decide_against_baseline(V{}, V{1, 1}, -15, 0.95, true).exit_code, kBisectBad);
}

// Two tight boots a side, 30 % apart: under icount a finding; on the wall clock two pairs that
// agree are what a host CPU of another speed gives, and the permutation test cannot show a
// change with 2 a side (p >= 1/3): a skip that says how many boots could.
TEST(BisectDecision, TwoWallClockBootsASideNeverDecideBad) {
    const V base{200, 201}, step{140, 141};
    EXPECT_EQ(decide_against_baseline(base, step, -15, 0.95, true).exit_code, kBisectBad);
    StepDecision d = decide_against_baseline(base, step, -15, 0.95, false);
    EXPECT_EQ(d.exit_code, kBisectSkip) << d.why;
    EXPECT_NE(d.why.find("the permutation test's smallest p with 2 and 2 samples is 0.333"), std::string::npos)
        << d.why;
}

// Boots booted in pairs (--baseline-kernel), from a wall-clock bisection on TCG, fork/ops_per_s
// at the level of look 9 of 9 (alpha 0.05 / 9). Two good commits the unpaired verdict skipped:
// one boot a stalled host slowed by 42 % (pair 3), and a host that fell from ~850 to ~600
// forks/s after pair 2. The paired test's 20 %-trimmed mean sees through both.
const V kStalledBase{720.2, 754.3, 853.1, 714.6, 775.9, 759.0, 795.8, 833.2, 803.2, 822.6};
constexpr double kLookConfidence = 1 - 0.05 / 9;

TEST(BisectDecision, PairedBootsSeeThroughOneSlowBootAndADriftingHost) {
    const double confidence = kLookConfidence;
    const V& stalled_base = kStalledBase;
    const V stalled_step{706.2, 767.0, 499.1, 754.0, 783.8, 800.1, 761.9, 854.9, 773.0, 766.4};
    const V drift_base{840.7, 869.7, 598.0, 627.0, 601.8, 637.8, 566.0, 613.8, 631.0, 644.3};
    const V drift_step{872.4, 893.9, 615.7, 635.6, 612.3, 614.2, 614.1, 593.5, 617.4, 632.5};
    for (const auto& [base, step] :
         {std::pair{stalled_base, stalled_step}, std::pair{drift_base, drift_step}}) {
        StepDecision apart = decide_against_baseline(base, step, -15, confidence, false);
        EXPECT_EQ(apart.exit_code, kBisectSkip) << apart.why;
        StepDecision paired = decide_against_baseline(base, step, -15, confidence, false, true);
        EXPECT_EQ(paired.exit_code, kBisectGood) << paired.why;
        EXPECT_NE(paired.why.find("good when the paired test puts it above"), std::string::npos)
            << paired.why;
        EXPECT_NE(paired.why.find(": not below -15.00% (the paired test, middle 6 of 10 pairs: "),
                  std::string::npos)
            << paired.why;
    }
    // A bad commit (slub_debug=FZPU, -55 %) whose boots ran beside a test suite, two of its
    // pairs the other way round: never good.
    const V busy_base{319.0, 821.0, 535.2, 126.9, 413.4, 149.9, 128.5, 285.3, 240.7, 180.1};
    const V busy_step{379.5, 395.5, 210.1, 126.9, 80.2, 89.8, 153.4, 110.8, 125.0, 125.5};
    EXPECT_NE(decide_against_baseline(busy_base, busy_step, -15, confidence, false, true).exit_code,
              kBisectGood);
    // A good commit whose step boots a burst of host load slowed (a test suite's build
    // starting beside it): 5 of 6 pairs slower, the permutation test's p 2/462, DIFFERENT by
    // the two sides; the pairs' trimmed mean (-20 %) is not shown below -15 %: a skip, where
    // the two sides alone named a wrong commit.
    const V burst_base{816, 742, 764, 681, 714, 755}, burst_step{660, 664, 463, 704, 573, 515};
    EXPECT_EQ(decide_against_baseline(burst_base, burst_step, -15, confidence, false).exit_code,
              kBisectBad);
    StepDecision burst =
        decide_against_baseline(burst_base, burst_step, -15, confidence, false, true);
    EXPECT_EQ(burst.exit_code, kBisectSkip) << burst.why;
    EXPECT_NE(burst.why.find("undecided (skip; more boots decide): DIFFERENT, but the paired test, "
                             "middle 4 of 6 pairs: "),
              std::string::npos)
        << burst.why;
}

// Pairs at the limit, too few, or unmatched are never good; bad needs both tests.
TEST(BisectDecision, PairedBootsAtTheLimitOrTooFewAreNeverGood) {
    const double confidence = kLookConfidence;
    const V& stalled_base = kStalledBase;
    // Right at the limit, however tight: never good. Near it with pairs 15 % apart: a skip
    // that gives the paired test's p.
    V at_limit, near_limit;
    for (size_t i = 0; i < stalled_base.size(); i++) {
        at_limit.push_back(stalled_base[i] * 0.85 * (i % 2 ? 1.001 : 0.999));
        near_limit.push_back(stalled_base[i] * (i % 2 ? 0.80 : 0.95));
    }
    EXPECT_NE(
        decide_against_baseline(stalled_base, at_limit, -15, confidence, false, true).exit_code,
        kBisectGood);
    StepDecision near =
        decide_against_baseline(stalled_base, near_limit, -15, confidence, false, true);
    EXPECT_EQ(near.exit_code, kBisectSkip) << near.why;
    EXPECT_NE(near.why.find(
                  "undecided (skip; more boots decide): the paired test, middle 6 of 10 pairs: "
                  "-12.82%, p = 0.316, not below 0.00556; for bad, the two sides: n = 10 a side"),
              std::string::npos)
        << near.why;
    // Two pairs that agree: good under icount, a skip on the wall clock, where one host
    // stall can slow two neighbouring boots alike.
    EXPECT_EQ(decide_against_baseline(V{800, 700}, V{799, 701}, -15, 0.95, true, true).exit_code,
              kBisectGood);
    StepDecision two = decide_against_baseline(V{800, 700}, V{799, 701}, -15, 0.95, false, true);
    EXPECT_EQ(two.exit_code, kBisectSkip) << two.why;
    EXPECT_NE(two.why.find("the paired test needs 3 pairs on the wall clock"), std::string::npos)
        << two.why;
    // Pairs that do not pair up are a skip that says so, never a judgement as two sides.
    StepDecision odd =
        decide_against_baseline(scaled(200, 6), scaled(140, 5), -15, 0.95, false, true);
    EXPECT_EQ(odd.exit_code, kBisectSkip) << odd.why;
    EXPECT_NE(odd.why.find("the paired test needs as many samples a side (has 6 and 5)"),
              std::string::npos)
        << odd.why;
    // Bad by both tests; and a rise is bad for a latency.
    StepDecision bad =
        decide_against_baseline(scaled(200, 6), scaled(140, 6), -15, 0.95, false, true);
    EXPECT_EQ(bad.exit_code, kBisectBad) << bad.why;
    EXPECT_NE(
        bad.why.find(
            ": DIFFERENT, and below -15.00% (the paired test, middle 4 of 6 pairs: -30.00%, p = "),
        std::string::npos)
        << bad.why;
    EXPECT_EQ(
        decide_against_baseline(scaled(100, 6), scaled(101, 6), 20, 0.95, false, true).exit_code,
        kBisectGood);
    EXPECT_EQ(
        decide_against_baseline(scaled(100, 6), scaled(119, 6), 20, 0.95, false, true).exit_code,
        kBisectGood);
    EXPECT_NE(
        decide_against_baseline(scaled(100, 6), scaled(125, 6), 20, 0.95, false, true).exit_code,
        kBisectGood);
}

// The first step of the same trial (slub_debug, so bad): the good kernel ran at 840–920
// forks/s for 5 pairs, then at 190–340 once the suite's boot tests began, and the step beside
// it fell alike. The two sides spread over each other, and their test stays undecided at 10
// boots a side; every pair's ratio lies below 0.85, which the signed ranks show from 8 pairs.
TEST(BisectDecision, SignedRanksDecideABadStepWhileTheHostSlowsDown) {
    const V base{920.0, 839.0, 891.3, 851.4, 923.0, 237.4, 340.8, 201.0, 188.4, 294.9};
    const V step{417.6, 401.2, 373.2, 408.5, 129.9, 178.9, 131.5, 128.5, 108.7, 130.7};
    const double confidence = 1 - 0.05 / 9; // the 9th look of --boots 2 --max-boots 10
    auto first = [](const V& v, size_t n) { return std::span<const double>(v).first(n); };
    StepDecision six =
        decide_against_baseline(first(base, 6), first(step, 6), -15, confidence, false, true);
    EXPECT_EQ(six.exit_code, kBisectSkip) << six.why;
    EXPECT_NE(
        six.why.find(
            "but neither DIFFERENT nor by the pairs' signed ranks (p = 0.0156, not below 0.00556)"),
        std::string::npos)
        << six.why;
    for (size_t n : {8, 10}) {
        StepDecision d =
            decide_against_baseline(first(base, n), first(step, n), -15, confidence, false, true);
        EXPECT_EQ(d.exit_code, kBisectBad) << d.why;
        EXPECT_NE(
            d.why.find(
                n == 8
                    ? "below -15.00% by the pairs' signed ranks (p = 0.00391) and the paired test"
                    : "below -15.00% by the pairs' signed ranks (p = 0.000977) and the paired "
                      "test"),
            std::string::npos)
            << d.why;
    }
    // Ranks alone are not enough: 8 pairs all below 0.85, five of them only just, leave the
    // paired test's trimmed mean short of showing it (a skip).
    const V ratio{0.845, 0.70, 0.849, 0.60, 0.848, 0.5, 0.847, 0.846};
    V just_below;
    for (size_t i = 0; i < ratio.size(); i++)
        just_below.push_back(base[i] * ratio[i]);
    StepDecision just =
        decide_against_baseline(first(base, 8), just_below, -15, confidence, false, true);
    EXPECT_EQ(just.exit_code, kBisectSkip) << just.why;
    // The same host without the commit: the pairs straddle 1, never bad.
    V good;
    for (size_t i = 0; i < base.size(); i++)
        good.push_back(base[i] * (i % 2 ? 1.04 : 0.97));
    EXPECT_EQ(decide_against_baseline(base, good, -15, confidence, false, true).exit_code,
              kBisectGood);
}

// Trial 7 of a wall-clock bisection beside a test suite: one boot of the good kernel made
// beside a step had a fork round of 0 operations (its vCPU held off the host for a second),
// so no harmonic mean. That is the step's bad luck: a skip that says so. The same document
// given as --baseline files is a bad baseline: an abort, as before.
TEST(BisectDecision, ABaselineBootWithoutTheMetricIsASkipWhenBootedBesideTheStep) {
    auto runs = [](std::vector<V> rates, const std::string& prefix) {
        std::vector<RunFile> out;
        for (size_t i = 0; i < rates.size(); i++)
            out.push_back(run_of(with_rates(rates[i], prefix + std::to_string(i))));
        return out;
    };
    const auto step = runs({{870, 880}, {875, 885}, {868, 872}}, "step");
    auto base = runs({{0, 465.6}, {891, 833}, {880, 884}}, "base");
    StepDecision paired = judge_runs(base, step, "fork/ops_per_s", -15, 0.95, false, true);
    EXPECT_EQ(paired.exit_code, kBisectSkip) << paired.why;
    EXPECT_TRUE(paired.final) << paired.why;
    EXPECT_NE(paired.why.find("skip: a boot of the baseline kernel beside this step has no usable "
                              "fork/ops_per_s ("),
              std::string::npos)
        << paired.why;
    StepDecision files = judge_runs(base, step, "fork/ops_per_s", -15, 0.95, false, false);
    EXPECT_EQ(files.exit_code, kBisectAbort) << files.why;
    EXPECT_NE(files.why.find("abort: the baseline has no usable fork/ops_per_s"), std::string::npos)
        << files.why;
    // The step's own boot without it: a skip, final.
    StepDecision own = judge_runs(step, base, "fork/ops_per_s", -15, 0.95, false, true);
    EXPECT_EQ(own.exit_code, kBisectSkip) << own.why;
    EXPECT_TRUE(own.final) << own.why;
    // With the round mended the same pairs decide, as pairs: good.
    base[0] = run_of(with_rates({878, 882}, "base0"));
    StepDecision mended = judge_runs(base, step, "fork/ops_per_s", -15, 0.95, false, true);
    EXPECT_EQ(mended.exit_code, kBisectGood) << mended.why;
    EXPECT_FALSE(mended.final) << mended.why;
    EXPECT_NE(mended.why.find("the paired test"), std::string::npos) << mended.why;
}

// The README's first bisect: one icount boot of two rounds as the baseline. Its rounds are not
// the samples: the boot is, and one boot has no spread, so the setup is refused before any
// boot, saying what would work.
TEST(BisectSetup, OneBaselineBootCannotDecide) {
    StepBudget budget{.limit_pct = -3, .boots = 1, .max_boots = 1, .confidence = 0.95, .deterministic = true};
    const StepReach one = step_reach(V{178.4}, budget);
    EXPECT_FALSE(one.decides);
    EXPECT_NE(one.why.find("the baseline is 1 boot(s)"), std::string::npos) << one.why;
    EXPECT_NE(one.advice.find("twice or more"), std::string::npos) << one.advice;
    // Two boots a layout fixed by nokaslr norandmaps makes agree to 0.01 %: one step boot decides.
    const StepReach steady = step_reach(V{175.52, 175.54}, budget);
    EXPECT_TRUE(steady.decides) << steady.why;
    EXPECT_LT(steady.reach_pct, 0.3) << steady.why;
    // Two boots 3 % apart (no fixed layout): +-36 % for one step boot; more step boots than
    // 20 would not do, more baseline boots would.
    const StepReach apart = step_reach(V{175.5, 180.8}, budget);
    EXPECT_FALSE(apart.decides);
    EXPECT_NE(apart.why.find("reaches +-"), std::string::npos) << apart.why;
    EXPECT_NE(apart.why.find("not inside the limit -3 %"), std::string::npos) << apart.why;
    EXPECT_FALSE(apart.advice.empty());
}

// On the wall clock a step must be able to be shown bad: the permutation test of 2 baseline
// and 2 step boots never gets below 1/3, whatever their spread.
TEST(BisectSetup, WallClockNeedsBootsThePermutationTestCanJudge) {
    StepBudget budget{.limit_pct = -15, .boots = 2, .max_boots = 2, .confidence = 0.95, .deterministic = false};
    const StepReach two = step_reach(V{200, 200.1}, budget);
    EXPECT_FALSE(two.decides);
    EXPECT_NE(two.why.find("the permutation test's smallest p with 2 baseline and 2 step boots is 0.333"),
              std::string::npos)
        << two.why;
    // Alpha spending shares the level among more looks as fast as more step boots lower the
    // smallest p: only more baseline boots help.
    EXPECT_NE(two.advice.find("5 baseline boots would"), std::string::npos) << two.advice;
    budget.max_boots = 10;
    EXPECT_FALSE(step_reach(V{200, 200.1}, budget).decides) << "1/C(12,2) = 0.015 > 0.05/9";
    const StepReach five = step_reach(V{200, 201, 199, 200.5, 199.5}, budget);
    EXPECT_TRUE(five.decides) << five.why;
    budget.boots = budget.max_boots = 1;
    EXPECT_NE(step_reach(V{200, 201, 199}, budget).why.find("one boot a step cannot be judged on the wall clock"),
              std::string::npos);
}

// A precisely measured change inside the limit is good by the rule, and the line says so.
TEST(BisectDecision, AGoodStepWithAMeasuredChangeSaysSo) {
    StepDecision d = decide_against_baseline(V{175.50, 175.55}, V{165.05, 165.02}, -15, 0.95, true);
    EXPECT_EQ(d.exit_code, kBisectGood) << d.why;
    EXPECT_NE(d.why.find("SAME (within +-15 %), good; note: a change of -5.98% was measured (interval ["),
              std::string::npos)
        << d.why;
    EXPECT_NE(d.why.find("inside the limit -15.00%: good by this rule, bad by a limit below it"),
              std::string::npos)
        << d.why;
    // One step boot against the baseline's prediction interval: the same note.
    StepDecision one = decide_against_baseline(V{175.50, 175.55, 175.52}, V{165.03}, -15, 0.95, true);
    EXPECT_EQ(one.exit_code, kBisectGood) << one.why;
    EXPECT_NE(one.why.find("; note: a change of -5.98% was measured"), std::string::npos) << one.why;
    // No change shown: no note.
    StepDecision same = decide_against_baseline(V{175.50, 175.55}, V{175.52, 175.53}, -15, 0.95, true);
    EXPECT_EQ(same.exit_code, kBisectGood) << same.why;
    EXPECT_EQ(same.why.find("note:"), std::string::npos) << same.why;
}

// The boot is the sample: two boots of two rounds each are two samples a side, however far
// their rounds lie apart (round 0 runs faster in every boot).
TEST(BisectDecision, BootsNotRoundsAreTheSamples) {
    std::vector<RunFile> base = {run_of(with_rates({181.0, 175.6}, "b0")), run_of(with_rates({181.1, 175.5}, "b1"))};
    std::vector<RunFile> step = {run_of(with_rates({170.3, 165.0}, "s0"))};
    StepDecision d = judge_runs(base, step, "fork/ops_per_s", -3, 0.95, true, false);
    EXPECT_EQ(d.exit_code, kBisectBad) << d.why;
    EXPECT_NE(d.why.find(" (n=1) vs baseline 178.2"), std::string::npos) << d.why;
    EXPECT_NE(d.why.find(" (n=2): -5.9"), std::string::npos) << d.why;
}

TEST(BisectDecision, Threshold) {
    EXPECT_EQ(decide_against_threshold(scaled(40), 50, -1, 0.95, false).exit_code, kBisectBad);
    EXPECT_EQ(decide_against_threshold(scaled(60), 50, -1, 0.95, false).exit_code, kBisectGood);
    EXPECT_EQ(decide_against_threshold(V{45, 55}, 50, -1, 0.95, false).exit_code, kBisectSkip);
    EXPECT_EQ(decide_against_threshold(V{60}, 50, +1, 0.95, true).exit_code, kBisectBad);
    EXPECT_EQ(decide_against_threshold(V{60}, 50, +1, 0.95, false).exit_code, kBisectSkip);
}

} // namespace
} // namespace initbench
