// compare's verdicts (DIFFERENT, SAME, UNKNOWN and why a method declined), the sequential
// looks of `ab`, --fail-on's rules and the marks on one-run sides, on synthetic results
// documents. No QEMU. bisect-step's decisions are bisect_decide_test.cpp.
#include "host/engine/ab.h"
#include "host/engine/ab_plan.h"
#include "host/compare/bisect_decide.h"
#include "host/compare/compare.h"
#include "host/compare/compare_checks.h"
#include "host/compare/compare_render.h"
#include "host/compare/sequential.h"

#include <regex>

#include "tests/unit/compare_fixture.h"
#include "tests/unit/temp_dir.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

using nlohmann::json;
using V = std::vector<double>;

// ---- three verdicts: DIFFERENT, SAME, UNKNOWN (issue 26) ------------------------------------

TEST(Verdict, QuietSidesOnePercentApartAreSame) {
    // CoV 0.35 %, 1.5 % apart: significant by Welch, but the equivalence test puts the change
    // well inside +-5 %. That is SAME, not a finding.
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(197), "b"));
    const Change& c = row(r, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(c.verdict, Decision::same);
    EXPECT_LT(*c.equivalence_p, 0.05);
    EXPECT_FALSE(c.significant);
}

TEST(Verdict, ThirtyPercentIsDifferent) {
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(140), "b", "bb"));
    const Change& c = row(r, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(c.verdict, Decision::different);
    EXPECT_GT(*c.equivalence_p, 0.5);
}

TEST(Verdict, NoisyChangeIsUnknownWithWhatWouldDecideIt) {
    V noisy_a{100, 160, 90, 150, 100}, noisy_b{80, 150, 70, 140, 90};
    Report r = compare_rounds(with_rates(noisy_a, "a"), with_rates(noisy_b, "b"));
    const Change& c = row(r, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(c.verdict, Decision::unknown);
    // sd 31.6 and 35.6 over 5 a side, mean 120: far more than 5 % is needed to show.
    ASSERT_TRUE(c.detectable_pct);
    EXPECT_GT(*c.detectable_pct, 40);
    ASSERT_TRUE(c.samples_needed);
    EXPECT_GT(*c.samples_needed, 50u);
    EXPECT_NE(c.note.find("not shown to lie within +-5 %"), std::string::npos) << c.note;
    std::string text = render(r, {Format::text, false});
    EXPECT_NE(text.find("legend: *x%* DIFFERENT"), std::string::npos) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(Hmean +ops_per_s +[\d.]+ +\( +0\.00%\) +[\d.]+ +\? +-\d+\.\d\d%\?)")))
        << text;
    EXPECT_TRUE(std::regex_search(
        text, std::regex(R"(undecided:\n  fork/ops_per_s, new: n = 5 a side detects changes of >= \d+(\.\d+)? % \(80 % power\); about \d+ a side would likely decide)")))
        << text;
    std::string md = render(r, {Format::markdown, false});
    EXPECT_NE(md.find("Undecided:"), std::string::npos) << md;
    json j = json::parse(render(r, {Format::json, false}));
    const json& change = j["metrics"][0]["sides"][1]["change"];
    EXPECT_EQ(change["verdict"], "unknown");
    EXPECT_GT(change["detectable_pct"].get<double>(), 40);
    EXPECT_GT(change["samples_needed"].get<int>(), 50);
}

TEST(Verdict, EachMethodSaysWhyItDeclined) {
    Report one = compare_rounds(with_rates({200}, "a"), with_rates({150}, "b"));
    const Change& p = row(one, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(p.verdict, Decision::unknown) << "never from a zero-width interval";
    EXPECT_EQ(p.note, "the permutation test needs 2 samples a side (has 1 and 1)");
    CompareOptions welch;
    welch.method = Method::welch;
    Report one_welch = compare_rounds(with_rates({200}, "a"), with_rates({150}, "b"), welch);
    const Change& w = row(one_welch, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(w.verdict, Decision::unknown) << "never from a zero-width interval";
    EXPECT_EQ(w.note, "Welch's t-test needs 2 samples a side (has 1 and 1)");
    CompareOptions lkp;
    lkp.method = Method::lkp;
    Report two = compare_rounds(with_rates({100, 101}, "a"), with_rates({50, 51}, "b"), lkp);
    const Change& l = row(two, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(l.verdict, Decision::unknown);
    EXPECT_EQ(l.note, "LKP's rule needs 3 samples a side (has 2 and 2)");
    EXPECT_NE(render(two, {Format::text, false}).find("LKP's rule needs 3 samples a side"),
              std::string::npos);
}

TEST(Verdict, ConstantSidesAreDecidedExactly) {
    // An instruction-counted clock can repeat to the last digit: no noise to test against.
    auto icount = [](V rates, const char* name) { return with_clock(with_rates(rates, name), "icount"); };
    Report same = compare_rounds(icount({200, 200, 200}, "a"), icount({204, 204, 204}, "b"));
    EXPECT_EQ(row(same, "fork/ops_per_s")->changes[0].verdict, Decision::same);
    Report diff = compare_rounds(icount({200, 200, 200}, "a"), icount({180, 180, 180}, "b"));
    EXPECT_EQ(row(diff, "fork/ops_per_s")->changes[0].verdict, Decision::different);
    EXPECT_EQ(*row(diff, "fork/ops_per_s")->changes[0].detectable_pct, 0);
    // On the wall clock equal figures are a coincidence of a coarse count, not an exact
    // answer: 3 a side cannot show a change (the permutation test's p is at least 0.1).
    Report wall = compare_rounds(with_rates({200, 200, 200}, "a"), with_rates({180, 180, 180}, "b"));
    const Change& w = row(wall, "fork/ops_per_s")->changes[0];
    EXPECT_EQ(w.verdict, Decision::unknown);
    EXPECT_NE(w.note.find("the permutation test's smallest p with 3 and 3 samples is 0.1, not below "
                          "0.05: it needs 4 a side to show a change"),
              std::string::npos)
        << w.note;
    EXPECT_EQ(w.samples_needed, 4u) << "never fewer than the test can decide with";
    CompareOptions lkp;
    lkp.method = Method::lkp;
    Report by_lkp = compare_rounds(with_rates({200, 200, 200}, "a"), with_rates({180, 180, 180}, "b"), lkp);
    EXPECT_EQ(row(by_lkp, "fork/ops_per_s")->changes[0].samples_needed, 3u) << "LKP's rule has no such floor";
    // A count that is 0 throughout (funclat's missed events) has no percent change, and is SAME.
    const V zeros{0, 0, 0};
    EXPECT_EQ(judge_change(zeros, zeros, 0, 0, Better::lower, {}).verdict, Decision::same);
    EXPECT_EQ(judge_change(zeros, V{0, 1, 0}, 0, 1.0 / 3, Better::lower, {}).verdict,
              Decision::unknown);
}

// ---- ab's sequential design ----------------------------------------------------------------

TEST(Sequential, InterleavedOrderIsMirroredBlocks) {
    std::string order;
    for (size_t i = 0; i < 8; i++)
        order += char('A' + interleaved_side(i, 2));
    EXPECT_EQ(order, "ABBAABBA");
    order.clear();
    for (size_t i = 0; i < 6; i++)
        order += char('A' + interleaved_side(i, 3));
    EXPECT_EQ(order, "ABCCBA");
}

TEST(Sequential, BootsThatEndOutOfOrderAllCount) {
    // -j 2 runs A-1 beside A-2 at times; A-2 may end first. It counted for nothing before
    // (and every later boot of A with it): a 68-trial run here had one ab end with "no look:
    // fewer than 2 boots a side finished" after six boots a side.
    BootsInOrder a;
    a.finished(2, "A-002.json");
    EXPECT_EQ(a.size(), 0u) << "boot 2 waits for boot 1";
    a.finished(3, "A-003.json");
    a.finished(1, "A-001.json");
    EXPECT_EQ(a.done(), (std::vector<std::string>{"A-001.json", "A-002.json", "A-003.json"}));
    a.finished(5, "A-005.json");
    EXPECT_EQ(a.size(), 3u);
    a.finished(4, "A-004.json");
    EXPECT_EQ(a.size(), 5u);
    EXPECT_EQ(a.done().back(), "A-005.json");
}

TEST(Sequential, LooksSpendAlphaOnceOverTheBudget) {
    SequentialPlan plan;
    plan.min_boots = 2;
    plan.max_boots = 5;
    EXPECT_EQ(plan.looks(), 4u);
    EXPECT_EQ(look_at(plan, 1).number, 0u) << "no look before min_boots";
    double sum = 0;
    for (size_t n = 2; n <= 5; n++) {
        Look l = look_at(plan, n);
        EXPECT_EQ(l.number, n - 1);
        EXPECT_NEAR(l.alpha, 0.05 / 4, 1e-15) << "rho 1 spends evenly";
        sum += l.alpha;
    }
    EXPECT_NEAR(sum, 0.05, 1e-15);
    EXPECT_EQ(look_at(plan, 9).boots, 5u) << "beyond the budget is the last look";
}

// The permutation test cannot reject with few boots: looks before it can would spend alpha
// for nothing. 5 a side is the first whose smallest p (2/252) is below its look's level.
TEST(Sequential, PermutationLooksStartWhereTheTestCanReject) {
    EXPECT_EQ(permutation_min_boots(0.05, 10), 5u); // 6 looks of 0.0083; 4 a side: 2/70 = 0.029
    EXPECT_EQ(permutation_min_boots(0.05, 6), 5u);  // 2 looks of 0.025; 4 a side: 3 looks of 0.017
    EXPECT_EQ(permutation_min_boots(0.05, 4), 4u);  // 1 look of 0.05 > 2/70
    EXPECT_EQ(permutation_min_boots(0.05, 3), 3u) << "the budget: UNKNOWN at its one look";
    EXPECT_EQ(permutation_min_boots(0.01, 10), 7u); // 4 looks of 0.0025; 6 a side: 0.002 < 2/924
}

// Boots at once get host CPUs of their own, from the last; none when they do not fit.
TEST(Sequential, BootsAtOnceArePinnedToCpusOfTheirOwn) {
    using Slots = std::vector<std::vector<unsigned>>;
    EXPECT_EQ(host_cpu_slots(1, 1, {0, 1}), (Slots{{1}}));
    EXPECT_EQ(host_cpu_slots(2, 1, {0, 1}), (Slots{{1}, {0}}));
    EXPECT_EQ(host_cpu_slots(1, 2, {0, 1, 4, 5}), (Slots{{4, 5}}));
    EXPECT_EQ(host_cpu_slots(2, 2, {0, 1, 2}), (Slots{{}, {}})) << "4 CPUs do not fit in 3";
}

// Boots at once on the wall clock: each side's boots go round the slots, so that at every
// multiple of `jobs` boots a side each side has as many on each slot, and the boots next to
// each other in the A B B A order can run at once.
TEST(Sequential, FixedSlotsSpreadEachSideOverEveryCpuAlike) {
    for (size_t sides = 2; sides <= 3; sides++)
        for (size_t jobs = 1; jobs <= 4; jobs++) {
            std::vector<std::vector<size_t>> on(sides, std::vector<size_t>(jobs, 0));
            std::vector<size_t> boots(sides, 0);
            for (size_t p = 0; p < sides * jobs * 5; p++) {
                const size_t side = interleaved_side(p, sides);
                on[side][slot_of_boot(side, ++boots[side], jobs)]++;
                if ((p + 1) % (sides * jobs) == 0) // every side has a multiple of jobs
                    for (size_t s = 0; s < sides; s++) {
                        for (size_t j = 0; j < jobs; j++) {
                            EXPECT_EQ(on[s][j] * jobs, boots[s]) << sides << " sides, " << jobs << " jobs, side " << s;
                        }
                    }
            }
        }
    // Two sides, two slots: A B B A A B B A runs on slots 0 1 0 1 0 1 0 1.
    std::string slots;
    std::vector<size_t> index(2, 0);
    for (size_t p = 0; p < 8; p++) {
        const size_t side = interleaved_side(p, 2);
        slots += char('0' + slot_of_boot(side, ++index[side], 2));
    }
    EXPECT_EQ(slots, "01010101");
}

TEST(Sequential, FixedSlotsTakeTheirOwnPositionsAndWaitForTheSlowOne) {
    SlotSchedule greedy(8, 2);
    EXPECT_EQ(greedy.take(1), 0u) << "greedy: any slot takes the next position";
    EXPECT_EQ(greedy.take(1), 1u);
    SlotSchedule fixed(12, 2, {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1});
    fixed.kept(0); // from an earlier run
    EXPECT_EQ(fixed.take(0), 2u) << "slot 0 runs the even positions";
    EXPECT_EQ(fixed.take(1), 1u);
    fixed.finished(2);
    EXPECT_EQ(fixed.take(0), 4u) << "position 1 unfinished: slot 0 may run to 1 + 2 * 2";
    fixed.finished(4);
    EXPECT_EQ(fixed.take(0), std::nullopt) << "6 waits for position 1, on the slow slot";
    fixed.finished(1);
    EXPECT_EQ(fixed.take(0), 6u);
    EXPECT_EQ(fixed.take(1), 3u);
}

// Looks every `step` boots a side: between looks the last look stands; the budget's last
// look is the last multiple, and alpha is spent over the looks there are.
TEST(Sequential, LooksEveryStepBoots) {
    SequentialPlan plan{2, 7, 0.05, 1, 2}; // looks at 2, 4, 6
    EXPECT_EQ(plan.looks(), 3u);
    EXPECT_EQ(plan.last_look_boots(), 6u);
    EXPECT_EQ(look_at(plan, 3).number, 1u);
    EXPECT_EQ(look_at(plan, 3).boots, 2u) << "3 a side: the look at 2 stands";
    EXPECT_EQ(look_at(plan, 4).number, 2u);
    EXPECT_EQ(look_at(plan, 7).boots, 6u);
    EXPECT_NEAR(look_at(plan, 6).alpha, 0.05 / 3, 1e-15);
    // The permutation test at 2 a side cannot reject; at 4 a side it can at a level of 0.025
    // (2 looks, 4 and 6): 2/70 is not below it, so 6 (2/924), one look of 0.05.
    EXPECT_EQ(permutation_min_boots(0.05, 6, 1, 2), 6u);
    EXPECT_EQ(permutation_min_boots(0.05, 10, 1, 2), 6u); // looks at 6, 8, 10: 0.0167 > 2/924
    EXPECT_EQ(permutation_min_boots(0.05, 10), 5u) << "step 1 as before";
    // Permuted within 2 host CPUs: 4 a side (2 a CPU) give 2/36, not below 0.0125 (looks at
    // 4 to 10); 6 (3 a CPU) give 2/400.
    EXPECT_EQ(permutation_min_boots(0.05, 10, 1, 2, 2), 6u);
    EXPECT_EQ(permutation_min_boots(0.05, 4, 1, 2, 2), 4u) << "the budget's one look";
    EXPECT_EQ(permutation_min_boots(0.01, 12, 1, 2, 2), 8u); // 3 looks of 0.0033: 2/400 no, 2/4900 yes
    // ab's strata: one a pinned slot when slots are fixed; unpinned slots share all CPUs.
    EXPECT_EQ(host_cpu_strata({{1}, {0}}, true), 2u);
    EXPECT_EQ(host_cpu_strata({{1}, {0}}, false), 1u) << "greedy slots (icount): not stratified";
    EXPECT_EQ(host_cpu_strata({{}, {}}, true), 1u) << "unpinned";
    EXPECT_EQ(host_cpu_strata({{3, 2}, {1, 0}}, true), 2u);
}

// -j's default: a boot per host CPU (per guest CPU) under icount, one on the wall clock; more
// than one asked for on the wall clock is done, with a warning that says why it is unwise.
TEST(Sequential, BootsAtOnceByClock) {
    EXPECT_EQ(boots_at_once(0, "icount", 2, 1).jobs, 2u);
    EXPECT_EQ(boots_at_once(0, "icount", 8, 2).jobs, 4u);
    EXPECT_EQ(boots_at_once(0, "icount", 1, 2).jobs, 1u) << "at least one";
    EXPECT_EQ(boots_at_once(0, "wall", 8, 1).jobs, 1u) << "the wall clock boots one at a time";
    EXPECT_EQ(boots_at_once(0, "wall", 8, 1).warning, "");
    const BootsAtOnce two = boots_at_once(2, "wall", 8, 1);
    EXPECT_EQ(two.jobs, 2u) << "asked for, done";
    EXPECT_NE(two.warning.find("-j 2 on the wall clock: host CPUs can differ in speed, so each side's boots are spread"),
              std::string::npos);
    EXPECT_EQ(boots_at_once(2, "icount", 8, 1).warning, "") << "icount's figures do not depend on the host CPU";
    EXPECT_EQ(boots_at_once(1, "wall", 8, 1).warning, "");
}

TEST(Sequential, ChosenMetricsAndWhenTheyAreDecided) {
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(140), "b", "bb"));
    LookVerdicts phase = chosen_verdicts(r, {});
    ASSERT_EQ(phase.verdicts.size(), 1u) << "default: the phase's metrics only";
    EXPECT_EQ(phase.verdicts[0].id, "fork/ops_per_s");
    EXPECT_EQ(phase.verdicts[0].side, "new");
    EXPECT_TRUE(phase.decided());
    LookVerdicts typo = chosen_verdicts(r, {"fork/ops_per_sec"});
    EXPECT_EQ(typo.unmatched, std::vector<std::string>{"fork/ops_per_sec"});
    EXPECT_FALSE(typo.decided()) << "a glob that matches nothing never decides";
    V noisy_a{100, 160, 90, 150, 100}, noisy_b{80, 150, 70, 140, 90};
    Report noisy = compare_rounds(with_rates(noisy_a, "a"), with_rates(noisy_b, "b"));
    EXPECT_FALSE(chosen_verdicts(noisy, {"ops_per_s"}).decided());
}

// Sides are named by their files; two files of one name by the shortest distinct end of
// their paths, not "r1" and "r1#2".

TEST(FailOn, ParsesSignedAndUnsignedRules) {
    auto up = parse_fail_rule("fork/ops_per_s:+5%");
    ASSERT_TRUE(up.ok());
    EXPECT_EQ(up.value().pattern, "fork/ops_per_s");
    EXPECT_EQ(up.value().sign, 1);
    EXPECT_EQ(up.value().pct, 5);
    auto either = parse_fail_rule("*/avg:2.5");
    ASSERT_TRUE(either.ok());
    EXPECT_EQ(either.value().sign, 0);
    EXPECT_EQ(either.value().pct, 2.5);
    EXPECT_FALSE(parse_fail_rule("ops_per_s").ok());
    EXPECT_FALSE(parse_fail_rule(":5%").ok());
    EXPECT_FALSE(parse_fail_rule("x:five%").ok());
    EXPECT_FALSE(parse_fail_rule("x:5%%").ok());
    EXPECT_FALSE(parse_fail_rule("x:nan").ok());
}

TEST(FailOn, FiresOnlyOnASignificantChangeInItsDirection) {
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(140), "b"));
    auto rule = [](const char* t) { return parse_fail_rule(t).value(); };
    EXPECT_EQ(apply_fail_rules(r, {rule("ops_per_s:-5%")}).fired.size(), 1u);
    EXPECT_EQ(apply_fail_rules(r, {rule("fork/*:10%")}).fired.size(), 1u);
    EXPECT_TRUE(apply_fail_rules(r, {rule("ops_per_s:+5%")}).fired.empty());
    EXPECT_TRUE(apply_fail_rules(r, {rule("ops_per_s:-40%")}).fired.empty());
    auto none = apply_fail_rules(r, {rule("tcp/*:5%")});
    EXPECT_EQ(none.unmatched, (std::vector<std::string>{"tcp/*:5%"}));
    Report same = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(198), "b"));
    EXPECT_TRUE(apply_fail_rules(same, {rule("ops_per_s:0.5%")}).fired.empty());
}

// ---- histograms judged by boots (issue 53) -----------------------------------------------

// One wall-clock boot of a kernel whose funclat histogram puts `first` of its events in the
// lower bucket: boots of one kernel differ in that share (the host's state of the moment),
// and each boot has thousands of events.
RunFile boot_with_share(double first, size_t n) {
    json doc = make_doc(with_rates(V(3, 200 * kJitter[n % kJitter.size()]), "run" + std::to_string(n)));
    for (auto& r : doc["records"])
        if (r.value("probe", "") == "funclat")
            r["log2"] = json{{1048576, std::round(3000 * first)}, {2097152, std::round(3000 * (1 - first))}};
    auto run = results_of(doc, "boot" + std::to_string(n) + ".json");
    EXPECT_TRUE(run.ok());
    return run.ok() ? run.value() : RunFile{};
}

const HistChange& log2_change(const Report& r) {
    for (const auto& h : r.histograms)
        if (h.id == "fork/funclat:kernel_clone/log2")
            return h.changes.at(0);
    throw std::runtime_error("no log2 histogram");
}

// Boots of one kernel split in halves: their pooled events differ far beyond chance (a
// chi-square over 27 000 events a side), their boots do not. Never "differ".
TEST(HistogramVerdict, HalvesOfOneKernelsBootsNeverDiffer) {
    const V shares = {0.75, 0.62, 0.5, 0.5, 0.77, 0.66, 0.47, 0.52, 0.53, 0.64, 0.73, 0.55};
    for (size_t half : {3, 6}) {
        Side a{"first", {}}, b{"second", {}};
        for (size_t n = 0; n < 2 * half; n++)
            (n % 2 ? b : a).runs.push_back(boot_with_share(shares[n], n));
        auto r = compare_sides({a, b}, {});
        ASSERT_TRUE(r.ok()) << r.error().message();
        const HistChange& c = log2_change(r.value());
        ASSERT_TRUE(c.events && c.test);
        EXPECT_LT(c.events->p, 1e-6) << half << " a side: the pooled events call them different";
        EXPECT_FALSE(c.significant) << half << " a side: p " << c.test->p;
        const std::string text = render(r.value(), {Format::text, false});
        EXPECT_EQ(text.find("distributions differ"), std::string::npos) << text;
        if (half == 3)
            EXPECT_NE(text.find("too few to test at 95 % (4 boots a side can)"), std::string::npos) << text;
    }
}

// Two kernels whose every boot differs from every boot of the other: shown with 4 boots a side.
TEST(HistogramVerdict, KernelsApartInEveryBootDiffer) {
    Side a{"head", {}}, b{"patch", {}};
    for (size_t n = 0; n < 4; n++) {
        a.runs.push_back(boot_with_share(0.6 + 0.01 * double(n), n));
        b.runs.push_back(boot_with_share(0.3 + 0.01 * double(n), n + 4));
    }
    auto r = compare_sides({a, b}, {});
    ASSERT_TRUE(r.ok()) << r.error().message();
    const HistChange& c = log2_change(r.value());
    ASSERT_TRUE(c.test);
    EXPECT_NEAR(c.test->p, 2.0 / 70, 1e-12) << "the observed split and its mirror, of C(8, 4)";
    EXPECT_TRUE(c.significant);
    EXPECT_NE(render(r.value(), {Format::text, false}).find("4 vs 4 boots permuted: p 0.0286: distributions differ"),
              std::string::npos);
}

// ---- no verdict on rounds of one wall-clock boot a side (issue 13) -------------------------

TEST(NoVerdict, OneWallClockRunASideMarksNothing) {
    Report r = compare_two(with_rates(scaled(200), "a"), slow_spec("wall"));
    ASSERT_FALSE(r.no_verdict.empty());
    for (const auto& m : r.metrics)
        for (const auto& c : m.changes) {
            EXPECT_FALSE(c.significant) << m.id;
            EXPECT_EQ(c.kind, ChangeKind::unqualified) << m.id;
        }
    for (const auto& h : r.histograms)
        for (const auto& c : h.changes)
            EXPECT_FALSE(c.significant) << h.id;
    const Change& c = row(r, "fork/ops_per_s")->changes[0];
    EXPECT_NEAR(*c.pct, -30, 0.5) << "the change is still shown";
    EXPECT_FALSE(c.p) << "no p-value that would read as a finding";

    std::string text = render(r, {Format::text, true});
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(Hmean +ops_per_s +200\.\d\d +\( +0\.00%\) +140\.\d\d +~ +-30\.\d\d%~)")))
        << text;
    EXPECT_EQ(text.find('*'), std::string::npos) << text;
    EXPECT_NE(text.find("no verdict: base and new have one run only on the wall clock"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("no verdict:"), text.rfind("no verdict:")) << "said once";
    EXPECT_NE(text.find(": no verdict (one run a side)"), std::string::npos) << "histograms too";
    EXPECT_EQ(render(r, {Format::terminal, false}).find("\033[31m"), std::string::npos);

    json j = json::parse(render(r, {Format::json, false}));
    EXPECT_EQ(j["verdicts"], false);
    EXPECT_TRUE(j["no_verdict"].is_string());
    const json& change = j["metrics"][0]["sides"][1]["change"];
    EXPECT_TRUE(change["significant"].is_null());
    EXPECT_EQ(change["verdict"], "unknown");
    EXPECT_EQ(change["direction"], "unqualified");
    EXPECT_TRUE(j["histograms"][0]["changes"][0]["significant"].is_null());
    std::string csv = render(r, {Format::csv, false});
    EXPECT_TRUE(std::regex_search(csv, std::regex(R"(\nfork/ops_per_s,[^\n]*,-30(\.\d+)?,,,,,unknown,unqualified,,\n)")))
        << csv;
    std::string md = render(r, {Format::markdown, false});
    EXPECT_NE(md.find("**no verdict**"), std::string::npos);
    EXPECT_NE(md.find("| \\~-30.00%\\~ |"), std::string::npos) << md;
    EXPECT_EQ(md.find("**-30.00%**"), std::string::npos);
}

TEST(NoVerdict, IcountRoundsAndUnitRoundAreJudged) {
    Report icount = compare_two(with_clock(with_rates(scaled(200), "a"), "icount"),
                                slow_spec("icount"));
    EXPECT_TRUE(icount.no_verdict.empty());
    EXPECT_EQ(row(icount, "fork/ops_per_s")->changes[0].kind, ChangeKind::worse);
    EXPECT_NE(render(icount, {Format::text, false}).find("* -30."), std::string::npos);
    Report rounds = compare_rounds(with_rates(scaled(200), "a"), slow_spec("wall"));
    EXPECT_TRUE(rounds.no_verdict.empty());
    EXPECT_TRUE(row(rounds, "fork/ops_per_s")->changes[0].significant);
    EXPECT_NE(render(rounds, {Format::text, false}).find("* -30."), std::string::npos);
    // --unit run with one run a side: one sample each, untested rather than unqualified.
    CompareOptions run;
    run.unit = SampleUnit::run;
    Report runs = compare_two(with_rates(scaled(200), "a"), slow_spec("wall"), run);
    EXPECT_TRUE(runs.no_verdict.empty());
    EXPECT_EQ(row(runs, "fork/ops_per_s")->changes[0].kind, ChangeKind::not_tested);
}

TEST(NoVerdict, BisectStepStillGetsTheRounds) {
    // bisect-step takes compare's samples and decides by its own interval rule.
    Report r = compare_two(with_rates(scaled(200), "a"), slow_spec("wall"));
    const MetricRow* m = row(r, "fork/ops_per_s");
    ASSERT_EQ(m->sides[1].samples.size(), 5u);
    EXPECT_EQ(decide_against_baseline(m->sides[0].samples, m->sides[1].samples, -15, 0.95, false)
                  .exit_code,
              kBisectBad);
}

TEST(NoVerdict, FailOnFiresOnTheEffectSizeAloneAndSaysSo) {
    Report r = compare_two(with_rates(scaled(200), "a"), slow_spec("wall"));
    auto out = apply_fail_rules(r, {parse_fail_rule("ops_per_s:-5%").value()});
    ASSERT_EQ(out.fired.size(), 1u);
    EXPECT_TRUE(out.unqualified);
    EXPECT_NE(out.fired[0].find("effect size alone"), std::string::npos) << out.fired[0];
    EXPECT_TRUE(apply_fail_rules(r, {parse_fail_rule("ops_per_s:-40%").value()}).fired.empty());
    Report judged = compare_rounds(with_rates(scaled(200), "a"), slow_spec("wall"));
    auto qualified = apply_fail_rules(judged, {parse_fail_rule("ops_per_s:-5%").value()});
    ASSERT_EQ(qualified.fired.size(), 1u);
    EXPECT_FALSE(qualified.unqualified);
    EXPECT_EQ(qualified.fired[0].find("effect size alone"), std::string::npos);
}


// A host whose speed drifts by a third between pairs of boots, each pair booted one after the
// other. B is 2 % below A in every pair, within 0.2 %.
std::vector<Side> drifting_pairs(double ratio) {
    const double speed[] = {900, 600, 750, 820, 640, 700};
    const double noise[] = {1.001, 0.999, 1.002, 0.998, 1.0, 1.001};
    Side a{"a", {}}, b{"b", {}};
    for (size_t i = 0; i < 6; i++) {
        a.runs.push_back(run_of(with_rates({speed[i]}, "a" + std::to_string(i)), "a" + std::to_string(i)));
        b.runs.push_back(run_of(with_rates({speed[i] * ratio * noise[i]}, "b" + std::to_string(i)),
                                "b" + std::to_string(i)));
    }
    return {a, b};
}

TEST(PairedCompare, PairsSeeThroughTheHostsDriftWhereTheSidesSpreadCannot) {
    CompareOptions o;
    o.min_effect_pct = 1;
    o.confidence = 0.99;
    auto unpaired = compare_sides(drifting_pairs(0.98), o);
    ASSERT_TRUE(unpaired.ok()) << unpaired.error().message();
    EXPECT_EQ(row(unpaired.value(), "fork/ops_per_s")->changes[0].verdict, Decision::unknown);
    o.method = Method::paired;
    auto paired = compare_sides(drifting_pairs(0.98), o);
    ASSERT_TRUE(paired.ok()) << paired.error().message();
    const Change& c = row(paired.value(), "fork/ops_per_s")->changes[0];
    EXPECT_EQ(c.verdict, Decision::different);
    EXPECT_EQ(c.kind, ChangeKind::worse);
    // The change is the pairs' geometric mean ratio, the figure tested, not the sides' means'.
    const double noise_gmean = std::pow(1.001 * 0.999 * 1.002 * 0.998 * 1.0 * 1.001, 1.0 / 6);
    EXPECT_NEAR(*c.pct, (0.98 * noise_gmean - 1) * 100, 1e-9);
    EXPECT_LT(*c.detectable_pct, 1.0);
    EXPECT_NE(compare_render::method_sentence(paired.value()).find("paired"), std::string::npos);
    // Within +-5 %: SAME, by the pairs' equivalence test.
    o.min_effect_pct = 5;
    auto same = compare_sides(drifting_pairs(0.98), o);
    EXPECT_EQ(row(same.value(), "fork/ops_per_s")->changes[0].verdict, Decision::same);
    // A pair is run i of each side: unequal sides, or rounds, are refused.
    auto sides = drifting_pairs(0.98);
    sides[1].runs.pop_back();
    auto refused = compare_sides(sides, o);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message().find("same number of runs"), std::string::npos);
    o.unit = SampleUnit::round;
    EXPECT_FALSE(compare_sides(drifting_pairs(0.98), o).ok());
    // A run without the metric on each side, at different places: equal counts, shifted pairs.
    o.unit = SampleUnit::auto_;
    auto gaps = drifting_pairs(0.98);
    gaps[0].runs[1] = run_of(with_rates({}, "a1"), "a1");
    gaps[1].runs[4] = run_of(with_rates({}, "b4"), "b4");
    auto shifted = compare_sides(gaps, o);
    ASSERT_TRUE(shifted.ok()) << shifted.error().message();
    const Change& g = row(shifted.value(), "fork/ops_per_s")->changes[0];
    EXPECT_EQ(g.verdict, Decision::unknown);
    EXPECT_EQ(g.kind, ChangeKind::not_tested);
    EXPECT_NE(g.note.find("in 5 of 6 runs only"), std::string::npos) << g.note;
}

// ab -o DIR of another plan: the fields that differ, by their path, not the plans' JSON.
TEST(AbPlan, AnotherPlanInTheDirectoryNamesTheFieldsThatDiffer) {
    TempDir t;
    nlohmann::json plan = {{"clock", "icount"},
                           {"sides", {{{"label", "a"}, {"params", {"nokaslr", "x"}}},
                                      {{"label", "b"}, {"params", {"nokaslr", "slub_debug=FZPU"}}}}}};
    ASSERT_TRUE(claim_directory(t / "out", plan).ok());
    EXPECT_TRUE(claim_directory(t / "out", plan).ok()) << "the same plan resumes";
    plan["clock"] = "wall";
    plan["sides"][1]["params"][1] = "slub_debug=P";
    auto refused = claim_directory(t / "out", plan);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message().find(
                  "holds another experiment (clock: \"icount\" there, \"wall\" now; sides[1].params[1]: "
                  "\"slub_debug=FZPU\" there, \"slub_debug=P\" now); use another --out"),
              std::string::npos)
        << refused.error().message();
}

} // namespace
} // namespace initbench
