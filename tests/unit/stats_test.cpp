// Unit tests of host/compare/stats: means, spread, Welch's t-test, LKP's rule and the histogram test
// against values computed independently (closed forms, R's t.test on its `sleep` data set).
#include "host/compare/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace initbench::stats {
namespace {

using V = std::vector<double>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Summarize, ArithmeticMeanAndSampleStddev) {
    auto s = summarize(V{2, 4, 4, 4, 5, 5, 7, 9}, Agg::amean);
    ASSERT_TRUE(s.ok()) << s.error().message();
    EXPECT_EQ(s.value().n, 8u);
    EXPECT_DOUBLE_EQ(s.value().mean, 5);
    EXPECT_NEAR(s.value().stddev, std::sqrt(32.0 / 7), 1e-12);
    EXPECT_NEAR(*s.value().cov, std::sqrt(32.0 / 7) / 5, 1e-12);
    EXPECT_EQ(s.value().min, 2);
    EXPECT_EQ(s.value().max, 9);
}

TEST(Summarize, HarmonicAndGeometricMeans) {
    auto h = summarize(V{1, 2, 4}, Agg::hmean);
    ASSERT_TRUE(h.ok());
    EXPECT_NEAR(h.value().mean, 3 / 1.75, 1e-12);
    EXPECT_NEAR(h.value().amean, 7.0 / 3, 1e-12);
    auto g = summarize(V{1, 2, 4}, Agg::gmean);
    ASSERT_TRUE(g.ok());
    EXPECT_NEAR(g.value().mean, 2, 1e-12);
}

TEST(Summarize, ZeroVarianceAndOneSample) {
    auto same = summarize(V{3, 3, 3}, Agg::hmean);
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(same.value().stddev, 0);
    EXPECT_EQ(*same.value().cov, 0);
    EXPECT_DOUBLE_EQ(same.value().mean, 3);
    auto one = summarize(V{42}, Agg::amean);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one.value().n, 1u);
    EXPECT_EQ(one.value().stddev, 0);
    EXPECT_EQ(one.value().mean, 42);
}

TEST(Summarize, ZeroMeanHasNoCoefficientOfVariation) {
    auto s = summarize(V{-1, 1}, Agg::amean);
    ASSERT_TRUE(s.ok());
    EXPECT_FALSE(s.value().cov.has_value());
}

TEST(Summarize, RefusesNanInfEmptyAndNonPositiveForHmean) {
    EXPECT_FALSE(summarize(V{}, Agg::amean).ok());
    EXPECT_FALSE(summarize(V{1, kNaN}, Agg::amean).ok());
    EXPECT_FALSE(summarize(V{1, kInf}, Agg::amean).ok());
    EXPECT_FALSE(summarize(V{1, -kInf}, Agg::amean).ok());
    EXPECT_FALSE(summarize(V{1, 0}, Agg::hmean).ok());
    EXPECT_FALSE(summarize(V{1, -2}, Agg::gmean).ok());
    EXPECT_TRUE(summarize(V{1, 0, -2}, Agg::amean).ok());
    EXPECT_NE(summarize(V{kNaN}, Agg::amean).error().message().find("NaN"), std::string::npos);
}

TEST(Agg, ParsedFromRecordsAndLabelledLikeMmtests) {
    EXPECT_EQ(parse_agg("hmean"), Agg::hmean);
    EXPECT_EQ(parse_agg("gmean"), Agg::gmean);
    EXPECT_EQ(parse_agg("mean"), Agg::amean);
    EXPECT_EQ(parse_agg("something-new"), Agg::amean);
    EXPECT_EQ(agg_label(Agg::hmean), "Hmean");
    EXPECT_EQ(agg_label(Agg::amean), "Amean");
}

TEST(PercentChange, SignedAndUndefinedForZeroBase) {
    EXPECT_NEAR(*percent_change(12846.32, 11627.27), -9.4895, 1e-3);
    EXPECT_NEAR(*percent_change(-10, -5), 50, 1e-12);
    EXPECT_FALSE(percent_change(0, 5).has_value());
}

// R: t.test(extra ~ group, data = sleep) gives t = -1.8608, df = 17.776, p-value = 0.07939,
// 95 percent confidence interval -3.3654832 0.2054832 (of mean(group 1) - mean(group 2)).
TEST(Welch, MatchesRsSleepExample) {
    V group1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
    V group2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
    auto w = welch(group2, group1, 0.95); // mean(b) - mean(a) = group1 - group2
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_NEAR(w.value().diff, -1.58, 1e-12);
    EXPECT_NEAR(w.value().t, -1.8608, 1e-4);
    EXPECT_NEAR(w.value().df, 17.776, 1e-3);
    EXPECT_NEAR(w.value().p, 0.07939, 1e-5);
    EXPECT_NEAR(w.value().ci_lo, -3.3654832, 1e-6);
    EXPECT_NEAR(w.value().ci_hi, 0.2054832, 1e-6);
}

// With one side constant and df = 2 the t distribution has a closed form:
// P(|T| > t) = 1 - t / sqrt(t^2 + 2).
TEST(Welch, OneConstantSideUsesTheOthersDegreesOfFreedom) {
    auto w = welch(V{5, 5, 5}, V{6, 7, 8}, 0.95);
    ASSERT_TRUE(w.ok());
    const double t = 2 / std::sqrt(1.0 / 3);
    EXPECT_NEAR(w.value().t, t, 1e-12);
    EXPECT_NEAR(w.value().df, 2, 1e-12);
    EXPECT_NEAR(w.value().p, 1 - t / std::sqrt(t * t + 2), 1e-9);
}

TEST(Welch, ZeroVarianceBothSidesDecidesExactly) {
    auto same = welch(V{7, 7, 7}, V{7, 7}, 0.95);
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(same.value().p, 1);
    EXPECT_EQ(same.value().ci_lo, 0);
    auto apart = welch(V{7, 7, 7}, V{6, 6}, 0.95);
    ASSERT_TRUE(apart.ok());
    EXPECT_EQ(apart.value().p, 0);
    EXPECT_EQ(apart.value().ci_lo, -1);
    EXPECT_EQ(apart.value().ci_hi, -1);
}

TEST(Welch, IdenticalSamplesAreNotDifferent) {
    V a{330, 410, 490, 380};
    auto w = welch(a, a, 0.95);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w.value().diff, 0);
    EXPECT_NEAR(w.value().p, 1, 1e-12);
    EXPECT_LT(w.value().ci_lo, 0);
    EXPECT_GT(w.value().ci_hi, 0);
}

TEST(Welch, RefusesOneSampleNanInfAndBadConfidence) {
    EXPECT_FALSE(welch(V{1}, V{1, 2}, 0.95).ok());
    EXPECT_FALSE(welch(V{1, 2}, V{}, 0.95).ok());
    EXPECT_FALSE(welch(V{1, kNaN}, V{1, 2}, 0.95).ok());
    EXPECT_FALSE(welch(V{1, 2}, V{kInf, 2}, 0.95).ok());
    EXPECT_FALSE(welch(V{1, 2}, V{1, 2}, 1.0).ok());
    EXPECT_FALSE(welch(V{1, 2}, V{1, 2}, kNaN).ok());
}

// Student's t with 2 degrees of freedom: the 97.5 % quantile is 4.302653.
TEST(MeanInterval, StudentInterval) {
    auto m = mean_interval(V{1, 2, 3}, 0.95);
    ASSERT_TRUE(m.ok());
    EXPECT_DOUBLE_EQ(m.value().mean, 2);
    const double half = 4.302653 / std::sqrt(3.0);
    EXPECT_NEAR(m.value().lo, 2 - half, 1e-5);
    EXPECT_NEAR(m.value().hi, 2 + half, 1e-5);
}

TEST(MeanInterval, OneSampleIsAPointAndNanIsRefused) {
    auto m = mean_interval(V{58.8}, 0.95);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m.value().lo, 58.8);
    EXPECT_EQ(m.value().hi, 58.8);
    EXPECT_FALSE(mean_interval(V{kNaN}, 0.95).ok());
    EXPECT_FALSE(mean_interval(V{}, 0.95).ok());
}

// {1..5}: s^2 = 2.5, so s * sqrt(1 + 1/5) = sqrt(3); Student's t with 4 degrees of freedom,
// 97.5 % quantile 2.776445 (published tables).
TEST(PredictionInterval, WidensTheMeanIntervalByOneDraw) {
    auto p = prediction_interval(V{1, 2, 3, 4, 5}, 0.95);
    ASSERT_TRUE(p.ok());
    EXPECT_DOUBLE_EQ(p.value().mean, 3);
    const double half = 2.776445 * std::sqrt(3.0);
    EXPECT_NEAR(p.value().lo, 3 - half, 1e-5);
    EXPECT_NEAR(p.value().hi, 3 + half, 1e-5);
    EXPECT_FALSE(prediction_interval(V{58.8}, 0.95).ok()) << "one sample has no spread";
    EXPECT_FALSE(prediction_interval(V{1, kNaN}, 0.95).ok());
}

TEST(Lkp, NeedsThreeSamplesAndSeparatedRanges) {
    EXPECT_TRUE(lkp_separated(V{10, 11, 12}, V{13, 14, 15}));
    EXPECT_TRUE(lkp_separated(V{13, 14, 15}, V{10, 11, 12}));
    EXPECT_FALSE(lkp_separated(V{10, 11, 13}, V{13, 14, 15})); // touching ranges overlap
    EXPECT_FALSE(lkp_separated(V{10, 11}, V{13, 14, 15}));
    EXPECT_TRUE(lkp_separated(V{10, 11}, V{13, 14}, 2));
}

// A 2x2 table has one degree of freedom: p = erfc(sqrt(chi2 / 2)).
TEST(Histograms, ChiSquareOfTwoByTwo) {
    V a{30, 20}, b{20, 30};
    auto h = compare_histograms(a, b);
    ASSERT_TRUE(h.ok()) << h.error().message();
    // Expected 25 in every cell: chi2 = 4 * 25 / 25 = 4.
    EXPECT_NEAR(h.value().chi2, 4, 1e-12);
    EXPECT_EQ(h.value().df, 1u);
    EXPECT_NEAR(h.value().p, std::erfc(std::sqrt(2.0)), 1e-12);
    EXPECT_NEAR(h.value().ks_d, 0.2, 1e-12);
}

// With two degrees of freedom p = exp(-chi2 / 2).
TEST(Histograms, TwoDegreesOfFreedom) {
    auto h = compare_histograms(V{10, 20, 30}, V{30, 20, 10});
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h.value().df, 2u);
    // Expected 20 in every cell: (100 + 0 + 100) * 2 / 20 = 20.
    EXPECT_NEAR(h.value().chi2, 20, 1e-12);
    EXPECT_NEAR(h.value().p, std::exp(-10.0), 1e-12);
}

TEST(Histograms, SameShapeDifferentTotalsIsNotDifferent) {
    auto h = compare_histograms(V{0, 10, 20, 10, 0}, V{0, 100, 200, 100, 0});
    ASSERT_TRUE(h.ok());
    EXPECT_NEAR(h.value().chi2, 0, 1e-12);
    EXPECT_NEAR(h.value().p, 1, 1e-12);
    EXPECT_NEAR(h.value().ks_d, 0, 1e-12);
}

TEST(Histograms, SparseBucketsAreMergedUntilExpectedCountsReachFive) {
    // Ten buckets of one event a side: merged into two cells of >= 5 expected events.
    auto h = compare_histograms(V{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, V{1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h.value().df, 1u);
    EXPECT_NEAR(h.value().p, 1, 1e-12);
    // Disjoint distributions: the KS distance is 1 and the test rejects.
    auto apart = compare_histograms(V{50, 50, 0, 0}, V{0, 0, 50, 50});
    ASSERT_TRUE(apart.ok());
    EXPECT_NEAR(apart.value().ks_d, 1, 1e-12);
    EXPECT_LT(apart.value().p, 1e-10);
}

TEST(Histograms, RefusesEmptyMismatchedNegativeAndNan) {
    EXPECT_FALSE(compare_histograms(V{0, 0}, V{1, 2}).ok());
    EXPECT_FALSE(compare_histograms(V{1, 2, 3}, V{1, 2}).ok());
    EXPECT_FALSE(compare_histograms(V{1, -2}, V{1, 2}).ok());
    EXPECT_FALSE(compare_histograms(V{1, kNaN}, V{1, 2}).ok());
}

// ---- the equivalence test, the detectable change and alpha spending (issue 26) ------------
// Student's t quantiles from R: qt(0.975, 10) = 2.228139, qt(0.95, 10) = 1.812461,
// qt(0.8, 10) = 0.8790578 (published tables give 2.228, 1.812 and 0.879).

// Six samples a side of variance 1.2 each: se = sqrt(0.4), Welch's df = 10 exactly.
const V kSix{0, 0, 0, 2, 2, 2};
V shifted(const V& xs, double by) {
    V out;
    for (double x : xs)
        out.push_back(x + by);
    return out;
}

TEST(Equivalence, TwoOneSidedTestsAgainstTheTTable) {
    const double se = std::sqrt(0.4);
    // A margin where the upper one-sided t is exactly -qt(0.975, 10): p = 0.025.
    const double margin = 0.5 + 2.228139 * se;
    auto e = tost(kSix, shifted(kSix, 0.5), margin, 0.05);
    ASSERT_TRUE(e.ok()) << e.error().message();
    EXPECT_NEAR(e.value().diff, 0.5, 1e-12);
    EXPECT_NEAR(e.value().p, 0.025, 1e-5);
    // The (1 - 2 alpha) = 90 % interval: 0.5 +- qt(0.95, 10) * se.
    EXPECT_NEAR(e.value().ci_lo, 0.5 - 1.812461 * se, 1e-5);
    EXPECT_NEAR(e.value().ci_hi, 0.5 + 1.812461 * se, 1e-5);
    // Shown equivalent exactly when that interval lies inside the margin.
    EXPECT_LT(tost(kSix, shifted(kSix, 0.5), 0.5 + 1.82 * se, 0.05).value().p, 0.05);
    EXPECT_GT(tost(kSix, shifted(kSix, 0.5), 0.5 + 1.80 * se, 0.05).value().p, 0.05);
    // A difference beyond the margin is never equivalent, however quiet.
    EXPECT_GT(tost(kSix, shifted(kSix, 3), 2, 0.05).value().p, 0.5);
}

// One half alone, as bisect-step uses it: is the difference shown above a bound (not worse
// than a limit)? Against the t table: df 10, qt(0.95) = 1.812461.
TEST(Equivalence, OneSidedTestAgainstTheTTable) {
    const double se = std::sqrt(0.4);
    auto w = welch(kSix, shifted(kSix, 0.5), 0.9).value();
    EXPECT_NEAR(one_sided_p(w, 0.5 - 1.812461 * se, true), 0.05, 1e-6);
    EXPECT_NEAR(one_sided_p(w, 0.5 + 1.812461 * se, false), 0.05, 1e-6);
    EXPECT_NEAR(one_sided_p(w, 0.5, true), 0.5, 1e-12);
    // Far on the wrong side of the bound: nothing shown.
    EXPECT_GT(one_sided_p(w, 3, true), 0.99);
    // TOST is the larger of its two halves.
    EXPECT_DOUBLE_EQ(tost(w, 2).p, std::max(one_sided_p(w, -2, true), one_sided_p(w, 2, false)));
    // Constant sides: exact.
    auto exact = welch(V{5, 5}, V{5.1, 5.1}, 0.9).value();
    EXPECT_EQ(one_sided_p(exact, 0, true), 0);
    EXPECT_EQ(one_sided_p(exact, 0.2, true), 1);
    EXPECT_EQ(one_sided_p(exact, 0.2, false), 0);
}

TEST(Equivalence, ConstantSidesAreExactAndBadInputRefused) {
    EXPECT_EQ(tost(V{5, 5}, V{5.1, 5.1}, 0.2, 0.05).value().p, 0);
    EXPECT_EQ(tost(V{5, 5}, V{5.3, 5.3}, 0.2, 0.05).value().p, 1);
    EXPECT_FALSE(tost(V{5}, V{5, 5}, 0.2, 0.05).ok());
    EXPECT_FALSE(tost(kSix, kSix, -1, 0.05).ok());
    EXPECT_FALSE(tost(kSix, kSix, 1, 0.6).ok());
    EXPECT_FALSE(tost(kSix, V{1, kNaN}, 1, 0.05).ok());
}

TEST(Detectable, WelchPowerAgainstTheTTable) {
    // sd 1 a side, n = 6: se = sqrt(1/3), df = 10: (2.228139 + 0.8790578) * se.
    const double expected = (2.228139 + 0.8790578) * std::sqrt(1.0 / 3);
    auto d = detectable_difference(1, 6, 1, 6, 0.05, 0.8);
    ASSERT_TRUE(d.ok());
    EXPECT_NEAR(d.value(), expected, 1e-5);
    EXPECT_EQ(detectable_difference(0, 3, 0, 3, 0.05).value(), 0) << "no noise, any change";
    EXPECT_FALSE(detectable_difference(1, 1, 1, 6, 0.05).ok());
    // The samples a side that bring it down to a target: 6 for exactly that, 7 for a bit less.
    EXPECT_EQ(samples_to_detect(1, 1, expected + 1e-6, 0.05), 6u);
    EXPECT_EQ(samples_to_detect(1, 1, expected - 1e-3, 0.05), 7u);
    EXPECT_FALSE(samples_to_detect(1, 1, 0.01, 0.05, 0.8, 50)) << "beyond the cap";
}

TEST(AlphaSpending, PowerFamilySpendsAlphaOnce) {
    EXPECT_DOUBLE_EQ(look_alpha(0.05, 1, 4, 3), 0.05 / 64);
    EXPECT_DOUBLE_EQ(spent_alpha(0.05, 2, 4, 1), 0.025);
    double sum = 0;
    for (size_t k = 1; k <= 9; k++)
        sum += look_alpha(0.05, k, 9, 2);
    EXPECT_NEAR(sum, 0.05, 1e-15);
    EXPECT_EQ(look_alpha(0.05, 0, 9, 2), 0);
}

// A/A sequences of normal samples, tested with Welch after every new pair from 2 to 10 a side:
// at look_alpha's levels the chance of ever claiming a difference stays below alpha; at alpha
// every time it does not. This is why `initbench ab` spends alpha.
TEST(AlphaSpending, KeepsTheErrorRateWhereRepeatedTestsDoNot) {
    std::mt19937_64 rng(26);
    std::normal_distribution<double> noise(100, 10);
    const size_t trials = 3000, first = 2, last = 10, looks = last - first + 1;
    size_t naive = 0, spent = 0;
    for (size_t t = 0; t < trials; t++) {
        V a, b;
        bool naive_hit = false, spent_hit = false;
        for (size_t n = 1; n <= last; n++) {
            a.push_back(noise(rng));
            b.push_back(noise(rng));
            if (n < first)
                continue;
            const double p = welch(a, b, 0.95).value().p;
            naive_hit = naive_hit || p < 0.05;
            spent_hit = spent_hit || p < look_alpha(0.05, n - first + 1, looks, 2);
        }
        naive += naive_hit;
        spent += spent_hit;
    }
    const double naive_rate = double(naive) / trials, spent_rate = double(spent) / trials;
    EXPECT_LE(spent_rate, 0.05) << spent_rate;
    EXPECT_GT(naive_rate, 0.10) << naive_rate;
}

// ---- the permutation test (the wall clock's) -----------------------------------------------
// Reference p-values counted by an independent script: every split of the pooled samples, the
// share whose |difference of means| is at least the observed one.

TEST(Permutation, CountsEverySplit) {
    auto t = permutation_test(V{10.1, 9.8, 10.4, 10.0}, V{10.9, 11.2, 10.7, 10.5, 11.0}).value();
    EXPECT_TRUE(t.exact);
    EXPECT_EQ(t.splits, 126);              // C(9, 4)
    EXPECT_DOUBLE_EQ(t.p, 2.0 / 126);      // this split and one other as far apart
    EXPECT_NEAR(t.diff, 10.86 - 10.075, 1e-12);
    EXPECT_DOUBLE_EQ(permutation_test(V{10.1, 9.8, 10.4, 10.0, 10.6}, V{10.9, 11.2, 10.2, 10.5, 11.0}).value().p,
                     12.0 / 252);
    EXPECT_DOUBLE_EQ(permutation_test(V{1, 2, 3}, V{4, 5, 6}).value().p, 0.1); // 2 of 20
    EXPECT_DOUBLE_EQ(permutation_test(V{1, 2}, V{2, 1}).value().p, 1);
}

// Two boots a side, each pair equal to four digits (a coarse count on a host whose two CPUs
// ran at different speeds): Welch's test takes the tiny spread at its word, p below the 0.01
// of ab's first look; the permutation test's answer is what two a side can say, p = 1/3.
TEST(Permutation, TwoTightPairsAreNotACertainty) {
    const V a{767.2, 768.0}, b{860.1, 859.9};
    EXPECT_LT(welch(a, b, 0.95).value().p, 0.002);
    EXPECT_DOUBLE_EQ(permutation_test(a, b).value().p, 1.0 / 3);
    EXPECT_DOUBLE_EQ(permutation_test(V{1, 1}, V{2, 2}).value().p, 1.0 / 3) << "ties count";
}

TEST(Permutation, RandomSplitsBeyondTheExactCountAndRefusals) {
    V a, b;
    for (int i = 0; i < 12; i++) // C(24, 12) = 2 704 156 splits: drawn, not counted
        a.push_back(100 + i), b.push_back(200 + i);
    auto t = permutation_test(a, b).value();
    EXPECT_FALSE(t.exact);
    EXPECT_EQ(t.splits, double(kDraws));
    EXPECT_DOUBLE_EQ(t.p, 1.0 / (1 + double(kDraws))) << "no draw is as far apart";
    EXPECT_EQ(permutation_test(a, b).value().p, t.p) << "a fixed seed: the same p every time";
    auto same = permutation_test(a, a).value();
    EXPECT_GT(same.p, 0.99);
    EXPECT_FALSE(permutation_test(V{}, V{1}));
    EXPECT_FALSE(permutation_test(V{1, kNaN}, V{1, 2}));
    EXPECT_FALSE(permutation_test(V(kLargeSample + 1, 1.0), V(kLargeSample + 1, 2.0)))
        << "beyond its sizes: Welch's";
}

TEST(Permutation, SmallestPAndTheSamplesItNeeds) {
    EXPECT_DOUBLE_EQ(permutation_min_p(2, 2), 1.0 / 3);
    EXPECT_DOUBLE_EQ(permutation_min_p(5, 5), 2.0 / 252);
    EXPECT_DOUBLE_EQ(permutation_min_p(3, 4), 1.0 / 35);
    EXPECT_EQ(permutation_min_samples(0.05), 4u); // 2/70 = 0.029; 3 a side: 0.1
    EXPECT_EQ(permutation_min_samples(0.01), 5u); // 2/252 = 0.0079; 4 a side: 0.029
}

// A/A sequences like wall-clock boots under TCG on a host whose CPUs differ in speed: most
// boots near 800, some near 500, counts rounded to whole operations. Tested after every pair
// from 2 to 6 a side at the spent levels, the permutation test keeps its promise.
TEST(Permutation, KeepsItsLevelOnHeavyTailedSequences) {
    std::mt19937_64 rng(30);
    std::normal_distribution<double> fast(800, 15), slow(500, 15);
    std::bernoulli_distribution on_slow(0.3);
    const size_t trials = 2000, first = 2, last = 6, looks = last - first + 1;
    size_t hits = 0;
    for (size_t t = 0; t < trials; t++) {
        V a, b;
        bool hit = false;
        for (size_t n = 1; n <= last && !hit; n++) {
            a.push_back(std::round(on_slow(rng) ? slow(rng) : fast(rng)));
            b.push_back(std::round(on_slow(rng) ? slow(rng) : fast(rng)));
            if (n >= first)
                hit = permutation_test(a, b).value().p < look_alpha(0.05, n - first + 1, looks, 1);
        }
        hits += hit;
    }
    EXPECT_LE(double(hits) / trials, 0.05) << hits;
}

} // namespace
} // namespace initbench::stats
