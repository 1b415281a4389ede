// compare's checks on synthetic results documents: which samples it takes (runs or rounds),
// what it refuses (mixed clocks, different experiments), what it warns of (a reused run id,
// different QEMU or image builds), and its output formats. No QEMU.
#include "host/compare/compare.h"
#include "host/compare/compare_checks.h"
#include "host/compare/stats.h"
#include "common/text.h"
#include "tests/unit/compare_fixture.h"

#include <gtest/gtest.h>

#include <regex>

namespace initbench {
namespace {

using nlohmann::json;
using V = std::vector<double>;

TEST(Compare, RunsAreTheSamplesWhenEverySideHasTwoOrMore) {
    // Rounds agree within a boot, boots disagree: the noise is between boots.
    std::vector<Side> sides = {Side{"base",
                                    {run_of(with_rates({200, 201, 199}, "a1")),
                                     run_of(with_rates({160, 161, 159}, "a2"))}},
                               Side{"new",
                                    {run_of(with_rates({190, 191, 189}, "b1")),
                                     run_of(with_rates({150, 151, 149}, "b2"))}}};
    auto by_run = compare_sides(sides, {});
    ASSERT_TRUE(by_run.ok());
    EXPECT_EQ(by_run.value().unit, SampleUnit::run);
    const MetricRow* m = row(by_run.value(), "fork/ops_per_s");
    ASSERT_EQ(m->sides[0].samples.size(), 2u);
    EXPECT_NEAR(m->sides[0].samples[1], 3 / (1 / 160.0 + 1 / 161.0 + 1 / 159.0), 1e-9);
    EXPECT_FALSE(m->changes[0].significant);
    EXPECT_FALSE(has_warning(by_run.value(), "the samples are rounds"));
    // Taking every round as a sample hides that noise; compare says so.
    CompareOptions rounds;
    rounds.unit = SampleUnit::round;
    auto by_round = compare_sides(sides, rounds);
    ASSERT_TRUE(by_round.ok());
    EXPECT_EQ(row(by_round.value(), "fork/ops_per_s")->sides[0].samples.size(), 6u);
    EXPECT_TRUE(has_warning(by_round.value(), "the samples are rounds"));
}

TEST(Compare, RoundsOfOneIcountRunNeedNoWarning) {
    // Wall clock, one run a side: rounds are the samples but give no verdict, said once.
    Report wall = compare_two(with_rates(scaled(200), "a"), with_rates(scaled(199), "b"));
    EXPECT_EQ(wall.unit, SampleUnit::round);
    EXPECT_NE(wall.no_verdict.find("two or more runs a side"), std::string::npos);
    EXPECT_FALSE(has_warning(wall, "the samples are rounds"));
    // Judging those rounds anyway (--unit round) is warned about.
    EXPECT_TRUE(has_warning(compare_rounds(with_rates(scaled(200), "a"),
                                           with_rates(scaled(199), "b")),
                            "the samples are rounds"));
    Report icount = compare_two(with_clock(with_rates(scaled(200), "a"), "icount"),
                                with_clock(with_rates(scaled(199), "b"), "icount"));
    EXPECT_FALSE(has_warning(icount, "the samples are rounds"));
    EXPECT_TRUE(icount.no_verdict.empty());
}

TEST(Compare, RefusesMixedClocksEvenWithForce) {
    Spec icount = with_rates(scaled(200), "b");
    icount.clock = "icount";
    CompareOptions force;
    force.force = true;
    for (const auto& o : {CompareOptions{}, force}) {
        auto r = compare_sides({Side{"base", {run_of(with_rates(scaled(200), "a"), "a.json")}},
                                Side{"new", {run_of(icount, "b.json")}}},
                               o);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message().find("different clocks"), std::string::npos);
    }
    Spec shift7 = icount;
    shift7.icount = "shift=7";
    EXPECT_FALSE(
        compare_sides({Side{"a", {run_of(icount)}}, Side{"b", {run_of(shift7)}}}, {}).ok());
}

TEST(Compare, RefusesDifferentExperimentsUnlessForced) {
    Spec longer = with_rates(scaled(200), "b");
    longer.duration = 10;
    std::vector<Side> sides = {Side{"base", {run_of(with_rates(scaled(200), "a"))}},
                               Side{"new", {run_of(longer)}}};
    auto refused = compare_sides(sides, {});
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message().find("duration: 1.0 vs 10.0"), std::string::npos)
        << refused.error().message();
    CompareOptions force;
    force.force = true;
    auto forced = compare_sides(sides, force);
    ASSERT_TRUE(forced.ok());
    EXPECT_FALSE(forced.value().warnings.empty());
}

TEST(Compare, WarnsOnReusedRunIdAndOnTheSameKernelClaimedDifferent) {
    Report reused = compare_two(with_rates(scaled(200), "same"), with_rates(scaled(150), "same"));
    EXPECT_TRUE(has_warning(reused, "same run id"));
    EXPECT_TRUE(has_warning(reused, "same kernel build"));
    // Same build and image, but a kernel parameter differs: a different kernel set-up.
    Spec slub = with_rates(scaled(150), "b");
    slub.cmdline += " slub_debug=FZPU";
    Report differs = compare_two(with_rates(scaled(200), "a"), slub);
    EXPECT_FALSE(has_warning(differs, "same kernel build"));
    EXPECT_FALSE(has_warning(differs, "same run id"));
    // The delay loop's lpj= is the host's measurement, not a set-up of the kernel's.
    Spec other_host = with_rates(scaled(150), "c");
    other_host.cmdline += " lpj=8396000";
    Report lpj = compare_two(with_rates(scaled(200), "a"), other_host);
    EXPECT_TRUE(has_warning(lpj, "same kernel build"));
    EXPECT_EQ(kernel_params("console=ttyS0 initbench.phases=fork slub_debug=FZPU lpj=8000000"),
              "console=ttyS0 slub_debug=FZPU");
}

// Different QEMU or image builds: a warning (not a refusal); unrecorded ones say nothing.
TEST(Compare, WarnsWhenQemuOrImageBuildsDiffer) {
    auto env = [](Spec s, std::string qemu, std::string version, std::string commit) {
        s.qemu = std::move(qemu);
        s.image_version = std::move(version);
        s.image_commit = std::move(commit);
        return s;
    };
    const std::string q7 = "QEMU emulator version 7.2.17 (Debian 1:7.2+dfsg-7+deb12u13)";
    const std::string q8 = "QEMU emulator version 8.2.2";
    Spec a = with_rates(scaled(200), "a"), b = with_rates(scaled(200), "b", "bb");
    Report same = compare_two(env(a, q7, "0.1.0", "abc"), env(b, q7, "0.1.0", "abc"));
    EXPECT_TRUE(same.environment_warnings.empty());
    EXPECT_FALSE(has_warning(same, "differs"));
    EXPECT_TRUE(compare_two(a, env(b, q8, "0.2.0", "def")).environment_warnings.empty())
        << "one side does not say: nothing to compare";

    Report qemu = compare_two(env(a, q7, "0.1.0", "abc"), env(b, q8, "0.1.0", "abc"));
    ASSERT_EQ(qemu.environment_warnings.size(), 1u);
    EXPECT_TRUE(has_warning(qemu, "QEMU differs: base ran " + q7 + ", new " + q8));
    EXPECT_EQ(qemu.sides[1].qemu, q8);

    Report commit = compare_two(env(a, q7, "0.1.0", "abc"), env(b, q7, "0.1.0", "abc-dirty"));
    ASSERT_EQ(commit.environment_warnings.size(), 1u);
    EXPECT_TRUE(has_warning(commit, "initbench image differs: base ran 0.1.0 (abc), new 0.1.0 (abc-dirty)"));
    Report version = compare_two(env(a, q7, "0.1.0", ""), env(b, q7, "0.2.0", ""));
    EXPECT_TRUE(has_warning(version, "initbench image differs: base ran 0.1.0, new 0.2.0"));
    EXPECT_EQ(version.sides[0].image, "0.1.0");
    // One build, two image files (rebuilt with uncommitted changes): said once, by its hash.
    Spec a_file = env(a, q7, "0.1.0", "abc"), b_file = env(b, q7, "0.1.0", "abc");
    a_file.image = std::string(64, '1'), b_file.image = std::string(64, '2');
    Report file = compare_two(a_file, b_file);
    ASSERT_EQ(file.environment_warnings.size(), 1u);
    EXPECT_TRUE(has_warning(file, "initbench image file differs: base ran 0.1.0 (abc), sha256 111111111111, "
                                  "new 0.1.0 (abc), sha256 222222222222"));
    b_file.image_version = "0.2.0";
    EXPECT_EQ(compare_two(a_file, b_file).environment_warnings.size(), 1u) << "the build's warning says it";

    auto pooled = compare_sides({Side{"base", {run_of(env(a, q7, "0.1.0", "abc"), "a1.json"),
                                               run_of(env(a, q8, "0.1.0", "abc"), "a2.json")}},
                                 Side{"new", {run_of(env(b, q7, "0.1.0", "abc"), "b.json")}}},
                                {});
    ASSERT_TRUE(pooled.ok());
    EXPECT_TRUE(has_warning(pooled.value(), "base pools runs of different QEMU"));
    EXPECT_TRUE(has_warning(pooled.value(), "QEMU differs"));

    std::string text = render(qemu, {Format::text, false});
    EXPECT_NE(text.find("warning: QEMU differs"), std::string::npos) << text;
    EXPECT_EQ(report_json(commit)["sides"][1]["image"], "0.1.0 (abc-dirty)");
}

// Runs that shared the host with other work (host.others_busy_cpus) are named on the wall
// clock, where it can slow a boot; under icount it changes nothing a run measures.
TEST(Compare, WarnsOfRunsBesideOtherWorkOnTheHost) {
    auto side = [](const std::string& label, std::vector<std::optional<double>> others, const std::string& clock) {
        Side s{label, {}};
        for (size_t i = 0; i < others.size(); i++) {
            Spec spec = with_rates(scaled(200 * kJitter[i % 5]), label + std::to_string(i));
            spec.clock = clock;
            spec.others_busy_cpus = others[i];
            s.runs.push_back(run_of(spec, label + std::to_string(i) + ".json"));
        }
        return s;
    };
    const auto busy = compare_sides({side("A", {0.02, 0.1, std::nullopt}, "wall"), side("B", {0.93, 0.04, 0.61}, "wall")}, {});
    ASSERT_TRUE(busy.ok()) << busy.error().message();
    EXPECT_TRUE(has_warning(busy.value(), "runs shared the host with other work, 0.5 CPUs' worth or more "
                                          "(host.others_busy_cpus): B 2 of 3 (up to 0.93 CPUs)"))
        << testing::PrintToString(busy.value().warnings);
    EXPECT_EQ(busy.value().environment_warnings.size(), 1u) << "also on stderr, with the environment's";
    const auto quiet = compare_sides({side("A", {0.02, 0.1, 0.3}, "wall"), side("B", {0.49, 0.04, std::nullopt}, "wall")}, {});
    EXPECT_FALSE(has_warning(quiet.value(), "other work"));
    const auto icount = compare_sides({side("A", {0.9, 0.9}, "icount"), side("B", {0.9, 0.9}, "icount")}, {});
    EXPECT_FALSE(has_warning(icount.value(), "other work"));
}

// ---- output ------------------------------------------------------------------------------

// One look of ab's sequential design is tested at a level above --confidence: the text says
// which look it is and why the level is not the one asked for.
TEST(Render, ALooksLevelIsExplainedWhereItIsPrinted) {
    CompareOptions o;
    o.confidence = 1 - 0.05 / 9;
    o.look = CompareOptions::Look{1, 9, 0.95};
    std::string text = render(compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(150), "b", "bb"), o),
                              {Format::text, false});
    EXPECT_NE(text.find("at 99.4444 % (look 1 of 9: alpha spending shares the 5 % error rate of --confidence "
                        "0.95 among the looks, so that stopping at the first decision keeps it)"),
              std::string::npos)
        << text;
    o.look.reset();
    text = render(compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(150), "b", "bb"), o),
                  {Format::text, false});
    EXPECT_EQ(text.find("look 1 of 9"), std::string::npos) << text;
}

TEST(Render, TextLooksLikeMmtests) {
    Report r = compare_rounds(with_rates(scaled(12846.32, 5), "a"),
                           with_rates(scaled(11627.27, 5), "b", "bb"));
    std::string text = render(r, {Format::text, false});
    EXPECT_TRUE(std::regex_search(
        text,
        std::regex(R"(Hmean +ops_per_s +12846\.\d\d +\( +0\.00%\) +11627\.\d\d +\* +-9\.\d\d%\*)")))
        << text;
    EXPECT_NE(text.find("Stddev"), std::string::npos);
    EXPECT_NE(text.find("CoeffVar"), std::string::npos);
    // A wall-clock comparison is judged by the permutation test (--method auto).
    EXPECT_NE(text.find("the permutation test of the means (exact, or from 10000 random splits; "
                        "no assumption of normal noise) at 95 %"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("\033["), std::string::npos) << "no colour in plain text";
    std::string details = render(r, {Format::text, true});
    EXPECT_NE(details.find("Samples"), std::string::npos);
    EXPECT_NE(render(r, {Format::terminal, false}).find("\033[31m"), std::string::npos);
}

TEST(Render, HistogramsSideBySideWithTheirTest) {
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(150), "b"));
    std::string text = render(r, {Format::text, false});
    EXPECT_NE(text.find("fork/funclat:kernel_clone/linear"), std::string::npos);
    EXPECT_NE(text.find("[5,10)"), std::string::npos);
    // One boot a side: the events are many, the boots one; no verdict, and what would give one.
    EXPECT_NE(text.find("KS D 0.000, 1 vs 1 boots permuted: p 1.0000: no verdict (1 and 1 boots give p >= 1: "
                        "too few to test at 95 % (4 boots a side can))"),
              std::string::npos)
        << text;
}

// Every format opens with the verdict: the change, its interval (Welch's, in percent of the
// base, here computed again from the samples) and the samples a side.
TEST(Render, EveryFormatOpensWithTheVerdictAndItsInterval) {
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(140), "b"));
    const MetricRow* m = row(r, "fork/ops_per_s");
    ASSERT_TRUE(m);
    auto w = stats::welch(m->sides[0].samples, m->sides[1].samples, r.options.confidence);
    ASSERT_TRUE(w.ok());
    const double base = m->sides[0].summary->mean;
    const double lo = w.value().ci_lo / base * 100, hi = w.value().ci_hi / base * 100;
    ASSERT_LT(lo, -29.5);
    ASSERT_GT(hi, -30.5);
    const std::string line = "fork/ops_per_s: new vs base -30.00 % [" + format_number(lo, "%+.2f") + " %, " +
                             format_number(hi, "%+.2f") + " %] DIFFERENT (worse), 5 a side";
    const std::string text = render(r, {Format::text, false});
    EXPECT_EQ(text.rfind("verdicts:\n  " + line + "\n", 0), 0u) << text;
    EXPECT_EQ(render(r, {Format::markdown, false}).rfind("**Verdicts**\n\n- ", 0), 0u);
    json j = json::parse(render(r, {Format::json, false}));
    EXPECT_EQ(j["verdict_lines"][0], line);
    EXPECT_NEAR(j["metrics"][0]["sides"][1]["change"]["interval_pct"][0].get<double>(), lo, 1e-9);
    EXPECT_NEAR(j["metrics"][0]["sides"][1]["change"]["interval_pct"][1].get<double>(), hi, 1e-9);
    const std::string csv = render(r, {Format::csv, false});
    EXPECT_NE(csv.find(",1,new,5,"), std::string::npos);
    EXPECT_NE(csv.find(",-30," + format_number(lo, "%.10g") + "," + format_number(hi, "%.10g") + ","), std::string::npos)
        << csv;
}

TEST(Render, JsonCsvMarkdown) {
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(140), "b"));
    json j = json::parse(render(r, {Format::json, false}));
    EXPECT_EQ(j["initbench_compare"], 1);
    EXPECT_EQ(j["metrics"][0]["id"], "fork/ops_per_s");
    EXPECT_EQ(j["metrics"][0]["sides"][1]["change"]["verdict"], "different");
    EXPECT_EQ(j["metrics"][0]["sides"][1]["change"]["direction"], "worse");
    EXPECT_EQ(j["histograms"].size(), 2u);
    std::string csv = render(r, {Format::csv, false});
    EXPECT_EQ(csv.rfind("metric,group,name,unit,agg,better,side,label,n,mean", 0), 0u);
    EXPECT_NE(csv.find("fork/ops_per_s,fork,ops_per_s,forks/s,Hmean,higher,1,new,5,"),
              std::string::npos);
    std::string md = render(r, {Format::markdown, false});
    EXPECT_NE(md.find("| metric | unit | stat | base | new | change |"), std::string::npos);
    EXPECT_NE(md.find("**-30.00%** different"), std::string::npos);
}

} // namespace
} // namespace initbench
