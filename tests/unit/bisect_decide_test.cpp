// bisect-step's decisions on a step's samples against a baseline's or a threshold: one
// sample a side never decides, compare's verdict with the limit as its minimum effect, the
// one-sided test for a good step, and the wall clock's two boots a side. No QEMU.
#include "host/cli/bisect_decide.h"

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

TEST(BisectDecision, Threshold) {
    EXPECT_EQ(decide_against_threshold(scaled(40), 50, -1, 0.95, false).exit_code, kBisectBad);
    EXPECT_EQ(decide_against_threshold(scaled(60), 50, -1, 0.95, false).exit_code, kBisectGood);
    EXPECT_EQ(decide_against_threshold(V{45, 55}, 50, -1, 0.95, false).exit_code, kBisectSkip);
    EXPECT_EQ(decide_against_threshold(V{60}, 50, +1, 0.95, true).exit_code, kBisectBad);
    EXPECT_EQ(decide_against_threshold(V{60}, 50, +1, 0.95, false).exit_code, kBisectSkip);
}

} // namespace
} // namespace initbench
