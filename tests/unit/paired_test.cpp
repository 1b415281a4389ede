// Unit tests of the paired test of boots booted one after the other (host/compare/stats.h,
// paired_log_ratio): Student's on the log ratios and Yuen's trimmed one, against values
// computed independently (R's t.test on its `sleep` data set, SciPy's Yuen test), and
// Wilcoxon's signed-rank test against SciPy's exact one and a count of all 2^n signs.
#include "host/compare/signed_rank.h"
#include "host/compare/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace initbench::stats {
namespace {

using V = std::vector<double>;

// R's sleep data as a paired test (t.test(..., paired = TRUE): t = -4.0621, df = 9,
// p = 0.002833, 95 % interval [-2.4598858, -0.7001142]), given as exp() of the values so that
// their log ratios are the published differences.
TEST(Paired, LogRatiosMatchRsPairedSleepExample) {
    V group1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
    V group2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
    V a, b;
    for (size_t i = 0; i < group1.size(); i++) {
        a.push_back(std::exp(group2[i]));
        b.push_back(std::exp(group1[i]));
    }
    auto w = paired_log_ratio(a, b, 0.95);
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_NEAR(w.value().diff, -1.58, 1e-12);
    EXPECT_NEAR(w.value().t, -4.0621, 1e-4);
    EXPECT_EQ(w.value().df, 9);
    EXPECT_NEAR(w.value().p, 0.002833, 1e-6);
    EXPECT_NEAR(w.value().ci_lo, -2.4598858, 1e-6);
    EXPECT_NEAR(w.value().ci_hi, -0.7001142, 1e-6);
    // The two sides' own spread is no part of it: Welch's on the same values is far wider.
    auto unpaired = welch(V(a.begin(), a.end()), b, 0.95);
    ASSERT_TRUE(unpaired.ok());
    EXPECT_LT(w.value().p, unpaired.value().p);
}

// A host that drifts: every pair's two boots move together, by up to a third, and B is 2 %
// below A in each. Pairs see the 2 % plainly; the sides' spreads hide it.
TEST(Paired, DriftBetweenPairsStaysOutOfTheRatios) {
    V a{900, 600, 750, 820, 640, 700}, b;
    const double noise[] = {1.001, 0.999, 1.002, 0.998, 1.0, 1.001};
    for (size_t i = 0; i < a.size(); i++)
        b.push_back(a[i] * 0.98 * noise[i]);
    auto paired = paired_log_ratio(a, b, 0.99);
    ASSERT_TRUE(paired.ok());
    EXPECT_NEAR(std::exp(paired.value().diff) - 1, -0.02, 0.001);
    EXPECT_LT(paired.value().p, 1e-5);
    EXPECT_GT(welch(a, b, 0.99).value().p, 0.5);
    // detectable_difference with a constant side 0 is the paired test's: df n - 1.
    const double sd = std::sqrt(paired.value().var_b * double(a.size()));
    auto d = detectable_difference(0, a.size(), sd, a.size(), 0.01);
    ASSERT_TRUE(d.ok());
    EXPECT_NEAR(d.value(), (4.032143 + 0.919544) * sd / std::sqrt(6.0), 1e-5 * sd); // t(0.995, 5), t(0.8, 5)
}

// Yuen's trimmed test against SciPy's (ttest_ind(x, zeros, trim=0.2, equal_var=False): a
// constant second group leaves the one-sample test, t = -0.3719040, p = 0.7252051; against
// ln(0.85), one-sided, t = 8.694312, p = 0.0001665). The ratios are ten wall-clock pairs of
// one bisection step, one of them a boot that a stalled host slowed by 42 %: untrimmed, that
// pair alone holds the one-sided p at 0.0421 (ttest_1samp).
TEST(Paired, TrimmedMatchesYuensTestAndShrugsOffOneWildPair) {
    const double x[] = {-0.02, 0.02, -0.54, 0.05, 0.01, 0.05, -0.04, 0.03, -0.04, -0.07};
    V a, b;
    for (double r : x) {
        a.push_back(700);
        b.push_back(700 * std::exp(r));
    }
    auto w = paired_log_ratio(a, b, 0.95, 0.2);
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_NEAR(w.value().diff, -0.02 / 3, 1e-12); // the middle six
    EXPECT_NEAR(w.value().se, 0.0179258, 1e-7);
    EXPECT_EQ(w.value().df, 5);
    EXPECT_NEAR(w.value().t, -0.3719040, 1e-6);
    EXPECT_NEAR(w.value().p, 0.7252051, 1e-6);
    EXPECT_NEAR(one_sided_p(w.value(), std::log(0.85), true), 0.0001665, 1e-7);
    auto untrimmed = paired_log_ratio(a, b, 0.95);
    ASSERT_TRUE(untrimmed.ok());
    EXPECT_NEAR(one_sided_p(untrimmed.value(), std::log(0.85), true), 0.042108, 1e-6);
    // Below five pairs 20 % cuts nothing: Student's test as it is.
    auto four =
        paired_log_ratio(V(a.begin(), a.begin() + 4), V(b.begin(), b.begin() + 4), 0.95, 0.2);
    auto four_untrimmed =
        paired_log_ratio(V(a.begin(), a.begin() + 4), V(b.begin(), b.begin() + 4), 0.95);
    EXPECT_DOUBLE_EQ(four.value().p, four_untrimmed.value().p);
    EXPECT_FALSE(paired_log_ratio(a, b, 0.95, 0.5).ok());
    EXPECT_FALSE(paired_log_ratio(V{1, 2, 3}, V{1, 2, 3}, 0.95, 0.4).ok()); // keeps one pair
}

TEST(Paired, RefusesUnequalSidesOnePairAndValuesNotAboveZero) {
    EXPECT_FALSE(paired_log_ratio(V{1, 2, 3}, V{1, 2}, 0.95).ok());
    EXPECT_FALSE(paired_log_ratio(V{1}, V{1}, 0.95).ok());
    EXPECT_FALSE(paired_log_ratio(V{1, 0}, V{1, 2}, 0.95).ok());
    EXPECT_FALSE(paired_log_ratio(V{1, 2}, V{1, -2}, 0.95).ok());
    EXPECT_FALSE(paired_log_ratio(V{1, 2}, V{1, NAN}, 0.95).ok());
    // Every pair the same ratio: no spread, the ratio is the answer.
    auto exact = paired_log_ratio(V{100, 200, 300}, V{50, 100, 150}, 0.95);
    ASSERT_TRUE(exact.ok());
    EXPECT_NEAR(exact.value().diff, std::log(0.5), 1e-12);
    EXPECT_EQ(exact.value().p, 0);
}

// scipy.stats.wilcoxon(x, alternative=..., method="exact") (SciPy 1.10.1): statistic 22,
// p 0.109375 for "greater" and 0.921875 for "less".
TEST(SignedRank, MatchesSciPysExactTest) {
    V x{0.3, -0.1, 0.25, 0.4, -0.2, 0.15, 0.05};
    auto above = signed_rank_p(x, 0, true), below = signed_rank_p(x, 0, false);
    ASSERT_TRUE(above.ok() && below.ok());
    EXPECT_NEAR(above.value(), 0.109375, 1e-12);
    EXPECT_NEAR(below.value(), 0.921875, 1e-12);
    // Against a bound: the same differences moved by it.
    V moved;
    for (double v : x)
        moved.push_back(v - 0.1625);
    EXPECT_NEAR(signed_rank_p(moved, -0.1625, true).value(), 0.109375, 1e-12);
}

// Ties share their mean rank and a zero is dropped: x = {1.2, -1.3, 1.3, 0.5, -0.5, 2.0, 0.8,
// 1.0, 0} has 8 left, rank sum above 28, and 25 of the 256 sign patterns reach it (238 stay
// at or below), counted by enumerating them all.
TEST(SignedRank, TiesShareTheirMeanRank) {
    V x{1.2, -1.3, 1.3, 0.5, -0.5, 2.0, 0.8, 1.0, 0.0};
    EXPECT_NEAR(signed_rank_p(x, 0, true).value(), 25.0 / 256, 1e-12);
    EXPECT_NEAR(signed_rank_p(x, 0, false).value(), 238.0 / 256, 1e-12);
    // Every difference on one side: 2^-n, whatever their sizes.
    EXPECT_NEAR(signed_rank_p(V{-3, -0.2, -1, -0.5, -2, -0.01, -7, -0.3}, 0, false).value(),
                1.0 / 256, 1e-15);
    EXPECT_FALSE(signed_rank_p(V{0, 0}, 0, true).ok());
    EXPECT_FALSE(signed_rank_p(V{1, NAN}, 0, true).ok());
}

} // namespace
} // namespace initbench::stats
