// Boots on host CPUs of different speeds (ab -j N on the wall clock): the permutation test and
// Welch's test within each host CPU set, and compare's choice of those sets. No QEMU.
#include "host/compare/compare.h"
#include "host/compare/stats.h"

#include "tests/unit/compare_fixture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace initbench {
namespace {

using stats::kDraws;
using stats::permutation_min_p;
using stats::permutation_test;
using stats::StratumSize;
using stats::tost;
using stats::welch;

// n boots a side alternating between two host CPUs, one 40 % slower, B's moved by `factor`;
// a small jitter, the same every time.
struct TwoCpus {
    V a, b;
    std::vector<size_t> on;
};
TwoCpus two_cpus(size_t n, double factor) {
    TwoCpus t;
    for (size_t i = 0; i < n; i++) {
        const double level = i % 2 ? 800 : 500;
        t.a.push_back(level * (1 + 0.004 * std::sin(double(i))));
        t.b.push_back(level * factor * (1 + 0.004 * std::cos(double(i))));
        t.on.push_back(i % 2);
    }
    return t;
}

// Boots on two host CPUs, one 40 % slower, each side's boots on both alike (ab -j 2 on the
// wall clock): permuted within each CPU a 3 % change stands out; over all splits the CPUs'
// gap hides it.
TEST(Permutation, WithinHostCpusFindsWhatTheirGapHides) {
    const V a{500, 502, 498, 800, 803, 797}, b{515, 517, 513, 824, 827, 821};
    const std::vector<size_t> on{0, 0, 0, 1, 1, 1};
    auto t = permutation_test(a, b, on, on).value();
    EXPECT_EQ(t.strata, 2u);
    EXPECT_TRUE(t.exact);
    EXPECT_EQ(t.splits, 400); // C(6, 3) a CPU
    EXPECT_DOUBLE_EQ(t.p, 2.0 / 400) << "the observed split and its mirror";
    EXPECT_NEAR(t.diff, 19.5, 1e-9); // 15 and 24, weighted alike
    EXPECT_GT(permutation_test(a, b).value().p, 0.3);
    const std::vector<size_t> one(6, 0);
    auto plain = permutation_test(a, b).value();
    auto single = permutation_test(a, b, one, one).value();
    EXPECT_EQ(single.p, plain.p) << "one stratum is the plain test";
    EXPECT_EQ(single.diff, plain.diff);
    EXPECT_EQ(single.strata, 1u);
    // A CPU that only one side ran on is left out; none with both sides is an error.
    V a_more = a;
    a_more.push_back(650);
    std::vector<size_t> on_more = on;
    on_more.push_back(2);
    auto left_out = permutation_test(a_more, b, on_more, on).value();
    EXPECT_EQ(left_out.strata, 2u);
    EXPECT_DOUBLE_EQ(left_out.p, t.p);
    EXPECT_FALSE(permutation_test(V{1, 2}, V{3, 4}, std::vector<size_t>{0, 0}, std::vector<size_t>{1, 1}));
    EXPECT_FALSE(permutation_test(V{1, 2}, V{3, 4}, std::vector<size_t>{0}, std::vector<size_t>{0, 0}))
        << "a stratum for every sample";
    // Too many splits to count (C(16, 8)^2): random ones within each CPU, the same every time.
    const TwoCpus big = two_cpus(16, 1.03);
    auto drawn = permutation_test(big.a, big.b, big.on, big.on).value();
    EXPECT_FALSE(drawn.exact);
    EXPECT_EQ(drawn.splits, double(kDraws));
    EXPECT_LT(drawn.p, 0.001);
    EXPECT_EQ(permutation_test(big.a, big.b, big.on, big.on).value().p, drawn.p);
    EXPECT_GT(permutation_test(big.a, big.b).value().p, 0.05);
}

// Beyond 50 samples a side the permutation test gives way to Welch's test, which keeps
// judging within each host CPU: the CPUs' gap stays out of the spread at any size.
TEST(Permutation, LargeSamplesStayWithinHostCpus) {
    const auto [a, b, on] = two_cpus(60, 0.97);
    ASSERT_FALSE(permutation_test(a, b, on, on)) << "beyond the sizes it permutes";
    CompareOptions options;
    options.method = Method::permutation;
    options.min_effect_pct = 1;
    const auto mean = [](const V& v) { return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); };
    const Change within = judge_change(a, b, mean(a), mean(b), Better::higher, options, on, on);
    EXPECT_EQ(within.strata, 2u);
    ASSERT_TRUE(within.p);
    EXPECT_LT(*within.p, 1e-6);
    EXPECT_EQ(within.verdict, Decision::different) << within.note;
    const Change over_all = judge_change(a, b, mean(a), mean(b), Better::higher, options);
    EXPECT_EQ(over_all.strata, 1u);
    EXPECT_GT(*over_all.p, 0.05) << "over all samples the CPUs' gap hides the change";
}

// Welch's test and TOST within strata: the CPUs' levels leave the spread, the stratified
// difference is the permutation test's.
TEST(Welch, WithinHostCpusTakesTheirLevelsOut) {
    const V a{500, 502, 498, 800, 803, 797}, b{515, 517, 513, 824, 827, 821};
    const std::vector<size_t> on{0, 0, 0, 1, 1, 1};
    auto within = welch(a, b, on, on, 0.95).value();
    auto plain = welch(a, b, 0.95).value();
    EXPECT_NEAR(within.diff, 19.5, 1e-9);
    EXPECT_NEAR(within.se * within.se, within.var_a + within.var_b, 1e-9);
    EXPECT_LT(within.se, plain.se / 50);
    EXPECT_LT(within.p, 1e-4);
    EXPECT_GT(plain.p, 0.5);
    EXPECT_GT(within.df, 2) << "Welch-Satterthwaite over four parts of 2 df: above the smallest";
    EXPECT_LE(within.df, 8) << "and at most their sum";
    // 0.1 % apart: inside +-5 % of 650 by TOST within the CPUs, not over them.
    V close = a;
    for (double& x : close)
        x *= 1.001;
    auto inside = welch(a, close, on, on, 0.90).value();
    EXPECT_LT(tost(inside, 32.5).p, 0.05);
    EXPECT_GT(tost(welch(a, close, 0.90).value(), 32.5).p, 0.05);
    EXPECT_FALSE(welch(V{1, 2, 3}, V{4, 5, 6}, std::vector<size_t>{0, 0, 1}, std::vector<size_t>{0, 0, 1}, 0.95))
        << "one a side on CPU 1: no spread within it";
}

TEST(Permutation, SmallestPWithinHostCpus) {
    const StratumSize even[] = {{3, 3}, {3, 3}}, uneven[] = {{2, 1}, {1, 2}}, one_sided[] = {{3, 3}, {2, 0}};
    EXPECT_DOUBLE_EQ(permutation_min_p(even), 2.0 / 400);
    EXPECT_DOUBLE_EQ(permutation_min_p(uneven), 1.0 / 9) << "no mirror: swapping every label changes the sizes";
    EXPECT_DOUBLE_EQ(permutation_min_p(one_sided), 2.0 / 20);
    EXPECT_DOUBLE_EQ(permutation_min_p(std::span<const StratumSize>{}), 1);
}

// ab -j 2's placement (A on CPUs 0 1 0 1 0 1, B on 1 0 1 0 1 0) on a host whose CPU 0 runs at
// 0.6 of CPU 1, the boots' noise 10 %: within each CPU the test keeps its level and finds a
// 20 % change; over all splits the CPUs' gap leaves it almost nothing to find.
TEST(Permutation, WithinHostCpusKeepsItsLevelAndItsPower) {
    std::mt19937_64 rng(26);
    std::normal_distribution<double> noise(1, 0.1);
    const size_t trials = 400, n = 6;
    size_t aa = 0, found = 0, found_plain = 0;
    for (size_t t = 0; t < trials; t++) {
        V a, b, slower;
        std::vector<size_t> on_a, on_b;
        for (size_t i = 0; i < n; i++) {
            on_a.push_back(i % 2);
            on_b.push_back((i + 1) % 2);
            a.push_back(800 * (on_a.back() ? 1 : 0.6) * noise(rng));
            b.push_back(800 * (on_b.back() ? 1 : 0.6) * noise(rng));
            slower.push_back(b.back() * 0.8);
        }
        aa += permutation_test(a, b, on_a, on_b).value().p < 0.05;
        found += permutation_test(a, slower, on_a, on_b).value().p < 0.05;
        found_plain += permutation_test(a, slower).value().p < 0.05;
    }
    EXPECT_LE(aa, trials * 6 / 100) << "A/A";
    EXPECT_GE(found, trials * 80 / 100);
    EXPECT_LE(found_plain, trials * 30 / 100);
    std::printf("within CPUs: A/A %zu, -20 %% found %zu; over all splits %zu (of %zu)\n", aa, found,
                found_plain, trials);
}

// ab -j 2 on the wall clock: each side's boots on both host CPUs alike, one CPU 40 % slower.
// compare permutes within each CPU and says so; sides that ran on different CPUs are warned of.
TEST(Verdict, BootsOnTwoHostCpusArePermutedWithinEach) {
    auto side = [](const std::string& label, double scale, bool pinned = true) {
        Side s{label, {}};
        for (unsigned i = 0; i < 6; i++) {
            Spec spec = with_rates(scaled(scale * (i % 2 ? 800 : 480) * kJitter[i % 5], 3), label + std::to_string(i));
            spec.host_cpus = {pinned ? i % 2 : 1};
            s.runs.push_back(run_of(spec, label + std::to_string(i) + ".json"));
        }
        return s;
    };
    Report r = compare_sides({side("A", 1), side("B", 0.9)}, {}).value();
    EXPECT_EQ(r.strata, (std::vector<std::string>{"0", "1"}));
    const Change& c = row(r, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(c.strata, 2u);
    EXPECT_EQ(c.verdict, Decision::different) << c.note;
    EXPECT_DOUBLE_EQ(*c.p, 2.0 / 400);
    EXPECT_NE(render(r, {Format::text, false}).find("permuted within each host CPU set the boots ran on (CPU 0 and CPU 1)"),
              std::string::npos);
    json j = json::parse(render(r, {Format::json, false}));
    EXPECT_EQ(j["strata"], json({"0", "1"}));
    EXPECT_EQ(j["metrics"][0]["sides"][1]["change"]["strata"], 2);
    EXPECT_EQ(j["sides"][1]["host_cpus"][1], "1");
    // 0.5 % apart is SAME: the equivalence test, too, judges the spread within each CPU.
    const Report close = compare_sides({side("A", 1), side("B", 1.005)}, {}).value();
    const Change& same = row(close, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(same.verdict, Decision::same) << same.note;
    EXPECT_LT(*same.detectable_pct, 2);
    // Three boots a side, one of them on CPU 1 (an ab cut short): no spread within CPU 1, so
    // SAME and the detectable change fall back to the spread over all; the test still
    // permutes within each CPU.
    Side a3 = side("A", 1), b3 = side("B", 1.005);
    a3.runs.resize(3);
    b3.runs.resize(3);
    const Report short_of_boots = compare_sides({a3, b3}, {}).value();
    const Change& fallback = row(short_of_boots, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(fallback.strata, 2u);
    EXPECT_EQ(fallback.verdict, Decision::unknown);
    ASSERT_TRUE(fallback.detectable_pct);
    EXPECT_GT(*fallback.detectable_pct, 30);
    // Over all splits the CPUs' gap hides the change: the same figures with no CPUs recorded.
    auto unplaced = [](Side s) {
        for (auto& run : s.runs)
            run.host_cpus.clear();
        return s;
    };
    Report plain = compare_sides({unplaced(side("A", 1)), unplaced(side("B", 0.9))}, {}).value();
    EXPECT_TRUE(plain.strata.empty());
    EXPECT_EQ(row(plain, "fork/ops_per_s")->changes[0].verdict, Decision::unknown);
    EXPECT_GT(*row(plain, "fork/ops_per_s")->changes[0].detectable_pct, 30);
    EXPECT_FALSE(has_warning(plain, "different host CPUs"));
    // Under icount the CPU does not matter; a side that ran on one CPU only is a warning.
    Report one_cpu = compare_sides({side("A", 1), side("B", 0.9, false)}, {}).value();
    EXPECT_TRUE(one_cpu.strata.empty());
    EXPECT_TRUE(has_warning(one_cpu, "the sides ran on different host CPUs (A on CPU 0 and CPU 1, B on CPU 1)")) << testing::PrintToString(one_cpu.warnings);
}

} // namespace
} // namespace initbench
