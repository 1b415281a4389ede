// Unit tests of `initbench compare` on synthetic results documents: reading and refusing
// files, finding metrics by structure, significance. No QEMU.
// Samples, refusals, warnings and output formats are compare_checks_test.cpp; verdicts,
// --fail-on and bisect-step's decisions compare_verdict_test.cpp; the command line
// compare_cli_test.cpp.
#include "host/compare/compare.h"
#include "host/compare/compare_checks.h"

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/unit/compare_fixture.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

using nlohmann::json;
using V = std::vector<double>;

// The wakeups probe's distinct threads, processes and mms are what the mm_cid experiment
// measures: metrics that pair round by round, never part of a group's name.
TEST(Compare, WakeupsCountsAreMetricsThatPairAcrossRounds) {
    auto with_wakeups = [](Spec s, double scale) {
        for (int r = 0; r < 2; r++)
            s.extra_records.push_back({{"v", 2}, {"type", "probe"}, {"phase", "fork"}, {"round", r},
                                       {"probe", "wakeups"}, {"supported", true},
                                       {"mechanism", "tp_btf/sched_wakeup"},
                                       {"wakeups", int(900 * scale) + r}, {"threads", int(6 * scale) + r},
                                       {"processes", int(6 * scale) + r}, {"mms", int(3 * scale) + r}});
        s.rates = {200, 201};
        return s;
    };
    Report r = compare_rounds(with_wakeups(Spec{}, 1), with_wakeups(Spec{}, 2));
    for (const char* name : {"wakeups", "threads", "processes", "mms"}) {
        const MetricRow* m = row(r, std::string("fork/wakeups/") + name);
        ASSERT_NE(m, nullptr) << name;
        ASSERT_EQ(m->sides.size(), 2u);
        for (const auto& side : m->sides)
            EXPECT_EQ(side.samples.size(), 2u) << name << ": both rounds in one group";
        EXPECT_GT(*m->changes[0].pct, 50) << name;
    }
    for (const auto& m : r.metrics)
        EXPECT_EQ(m.group.find('['), std::string::npos) << m.group << ": no measured value in a group name";
}

// ---- reading ---------------------------------------------------------------------------

TEST(ReadResults, RefusesWhatIsNotACompleteResultsDocument) {
    EXPECT_FALSE(parse_results("not json", "x").ok());
    EXPECT_FALSE(parse_results("[1,2]", "x").ok());
    EXPECT_FALSE(parse_results(R"({"initbench_results": 2})", "x").ok());
    EXPECT_FALSE(parse_results(R"({"initbench_results": "1"})", "x").ok());
    Spec cut;
    cut.status = "incomplete";
    auto r = parse_results(make_doc(cut).dump(), "cut.json");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find("incomplete"), std::string::npos);
    Spec timeout;
    timeout.verdict = "timeout";
    EXPECT_FALSE(parse_results(make_doc(timeout).dump(), "x").ok());
    json no_header = make_doc(Spec{});
    no_header["records"].erase(0);
    EXPECT_FALSE(parse_results(no_header.dump(), "x").ok());
}

// Records of a version this build cannot read are refused, by name; older known ones are read.
// (Hand-made records without "v" are read: parse never keeps a record without one.)
TEST(ReadResults, RefusesUnknownRecordVersions) {
    json doc = make_doc(Spec{});
    doc["records"][1]["v"] = kSchemaVersion + 1;
    auto r = parse_results(doc.dump(), "new.json");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find("new.json: phase record: unknown record version " +
                                       std::to_string(kSchemaVersion + 1)),
              std::string::npos)
        << r.error().message();
    doc["records"][1]["v"] = "2";
    EXPECT_FALSE(parse_results(doc.dump(), "x").ok());
    for (int known = kOldestSchemaVersion; known <= kSchemaVersion; ++known) {
        doc["records"][1]["v"] = known;
        EXPECT_TRUE(parse_results(doc.dump(), "x").ok()) << "version " << known;
    }
}

TEST(ReadResults, OddTypesNeverThrow) {
    json d = make_doc(Spec{});
    d["host"] = 5;
    d["records"][0]["kernel"] = "x";
    d["records"][1]["metrics"] = {{"ops_per_s", "fast"}, {"other", nullptr}};
    d["records"].push_back(7);
    auto r = parse_results(d.dump(), "odd.json");
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r.value().clock, "unknown");
    EXPECT_NO_THROW(extract({r.value()}));
}

TEST(ReadResults, TakesIdentityClockAndExperiment) {
    Spec s;
    s.clock = "icount";
    RunFile r = run_of(s);
    EXPECT_EQ(r.clock, "icount");
    EXPECT_EQ(r.clock_detail, "shift=4,align=off,sleep=off");
    EXPECT_EQ(r.build_id, s.build_id);
    EXPECT_EQ(r.image_sha256, "1111");
    EXPECT_EQ(r.experiment["config"]["duration"], 1);
    EXPECT_FALSE(r.experiment["config"].contains("rounds")) << "rounds may differ between files";
    EXPECT_EQ(r.records.size(), 6u); // 3 phases + 3 probes; header and end are not measurements
}

// ---- finding metrics -------------------------------------------------------------------

// A version 1 funclat record: its metrics and histograms are the fields its description
// declares, in declared order, with the declared units and directions.
TEST(Extract, PhaseMetricsAndDeclaredProbeFields) {
    Extracted e = extract({run_of(Spec{})});
    std::vector<std::string> ids;
    for (const auto& s : e.metrics)
        ids.push_back(s.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"fork/ops_per_s", "fork/funclat:kernel_clone/count",
                                             "fork/funclat:kernel_clone/avg"}));
    EXPECT_EQ(e.metrics[0].agg, Agg::hmean);
    EXPECT_EQ(e.metrics[0].better, Better::higher);
    EXPECT_EQ(e.metrics[0].samples, (V{200, 200, 200}));
    EXPECT_EQ(e.metrics[1].unit, "calls");
    EXPECT_EQ(e.metrics[2].unit, "ns");
    EXPECT_EQ(e.metrics[2].better, Better::lower);
    ASSERT_EQ(e.histograms.size(), 2u);
    EXPECT_EQ(e.histograms[0].id, "fork/funclat:kernel_clone/log2");
    EXPECT_EQ(e.histograms[0].counts, (V{180, 120}));
    EXPECT_EQ(e.histograms[1].id, "fork/funclat:kernel_clone/linear");
    EXPECT_EQ(e.histograms[1].labels, (std::vector<std::string>{"<0", "[0,5)", "[5,10)", ">=10"}));
    EXPECT_EQ(e.histograms[1].counts, (V{0, 150, 147, 3})); // pooled over 3 rounds
}

TEST(Extract, SweptAndRepeatedPhasesMakeSeparateGroups) {
    Spec s;
    s.rates = {};
    // A sweep's value is in the phase's name, as the init writes it (tcp-1, tcp-64).
    for (int clients : {1, 64})
        for (int round : {0, 1})
            s.extra_records.push_back({{"type", "phase"},
                                       {"phase", "tcp-" + std::to_string(clients)},
                                       {"round", round},
                                       {"load", {{"name", "tcp"}, {"clients", clients}}},
                                       {"metrics", {{"ops_per_s", 1000.0 * clients + round}}}});
    // The same phase twice in one round (phases=none,fork,none): told apart by order.
    for (double v : {1.0, 2.0})
        s.extra_records.push_back(
            {{"type", "phase"}, {"phase", "cpu"}, {"round", 0}, {"metrics", {{"x", v}}}});
    // A record type no description declares: compare does not guess what its numbers are.
    s.extra_records.push_back({{"type", "schedstat"},
                               {"phase", "tcp"},
                               {"round", 0},
                               {"cpu", 1},
                               {"domain0", {{"lb_count", 12}, {"note", "x"}}}});
    Extracted e = extract({run_of(s)});
    std::map<std::string, V> by_id;
    for (const auto& m : e.metrics)
        by_id[m.id] = m.samples;
    EXPECT_EQ(by_id.size(), 4u);
    EXPECT_EQ(by_id["tcp-1/ops_per_s"], (V{1000, 1001}));
    EXPECT_EQ(by_id["tcp-64/ops_per_s"], (V{64000, 64001}));
    EXPECT_EQ(by_id["cpu/x"], (V{1}));
    EXPECT_EQ(by_id["cpu#2/x"], (V{2}));
}

TEST(Extract, UnsupportedProbeAndUnmeasuredMetricGiveNoSamples) {
    Spec s;
    s.rates = {};
    s.extra_records.push_back({{"type", "probe"},
                               {"phase", "fork"},
                               {"probe", "funclat"},
                               {"function", "task_mm_cid_work"},
                               {"supported", false},
                               {"reason", "not in BTF"}});
    s.extra_records.push_back(
        {{"type", "counters"}, {"phase", "fork"}, {"metrics", {{"cycles", {{"unit", "cycles"}}}}}});
    EXPECT_TRUE(extract({run_of(s)}).metrics.empty());
}

// ---- comparing ---------------------------------------------------------------------------

// A joined phase (phases=sleep+syscall) as the init writes it: each load's metrics at the top
// as LOAD.METRIC (and again, unprefixed, in its "loads" entry).
json joined_phase(int round, double sleep_rate, double syscall_rate) {
    auto rate = [](double v, const char* unit) {
        return json{{"value", v}, {"unit", unit}, {"agg", "hmean"}, {"better", "higher"}};
    };
    return {{"type", "phase"},
            {"phase", "sleep+syscall"},
            {"round", round},
            {"loads",
             {{{"name", "sleep"}, {"metrics", {{"ops_per_s", rate(sleep_rate, "wake-up/s")}}}},
              {{"name", "syscall"}, {"metrics", {{"ops_per_s", rate(syscall_rate, "call/s")}}}}}},
            {"metrics",
             {{"sleep.ops_per_s", rate(sleep_rate, "wake-up/s")},
              {"syscall.ops_per_s", rate(syscall_rate, "call/s")}}}};
}

TEST(Compare, JoinedPhasePairsEachLoadsMetric) {
    Spec a = with_rates({}, "a"), b = with_rates({}, "b");
    for (int r = 0; r < 5; r++) {
        a.extra_records.push_back(joined_phase(r, 4000 * kJitter[r], 100 * kJitter[r]));
        // The sleepers keep their rate; the syscall loop beside them loses 30 %.
        b.extra_records.push_back(joined_phase(r, 4000 * kJitter[r], 70 * kJitter[r]));
    }
    Report rep = compare_rounds(a, b);
    const MetricRow* sleep = row(rep, "sleep+syscall/sleep.ops_per_s");
    const MetricRow* syscall = row(rep, "sleep+syscall/syscall.ops_per_s");
    ASSERT_TRUE(sleep && syscall);
    EXPECT_EQ(sleep->unit, "wake-up/s");
    EXPECT_EQ(syscall->unit, "call/s");
    ASSERT_EQ(sleep->changes.size(), 1u);
    ASSERT_EQ(syscall->changes.size(), 1u);
    EXPECT_FALSE(sleep->changes[0].significant);
    EXPECT_TRUE(syscall->changes[0].significant);
    EXPECT_EQ(syscall->changes[0].kind, ChangeKind::worse);
    EXPECT_NEAR(*syscall->changes[0].pct, -30, 0.01);
}

TEST(Compare, SameKernelFiveRoundsIsNotFlagged) {
    // Two runs of one kernel differing by 1.5 %: well inside the default minimum effect.
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(197), "b"));
    const MetricRow* m = row(r, "fork/ops_per_s");
    ASSERT_TRUE(m);
    ASSERT_EQ(m->changes.size(), 1u);
    EXPECT_FALSE(m->changes[0].significant);
    EXPECT_EQ(m->changes[0].kind, ChangeKind::none);
    for (const auto& metric : r.metrics)
        for (const auto& c : metric.changes)
            EXPECT_FALSE(c.significant) << metric.id;
}

TEST(Compare, ThirtyPercentSlowdownIsFlaggedWorse) {
    Report r = compare_rounds(with_rates(scaled(200), "a"), with_rates(scaled(140), "b", "bb"));
    const MetricRow* m = row(r, "fork/ops_per_s");
    ASSERT_TRUE(m && m->sides[0].summary && m->sides[1].summary);
    EXPECT_NEAR(*m->changes[0].pct, -30, 0.5);
    EXPECT_TRUE(m->changes[0].significant);
    EXPECT_EQ(m->changes[0].kind, ChangeKind::worse);
    // The permutation test's smallest p at 5 a side: this split and its mirror, of 252.
    EXPECT_DOUBLE_EQ(*m->changes[0].p, 2.0 / 252);
    EXPECT_EQ(m->sides[0].summary->n, 5u);
}

TEST(Compare, DirectionComesFromTheMetric) {
    Report r = compare_rounds(with_rates(scaled(140), "a"), with_rates(scaled(200), "b"));
    EXPECT_EQ(row(r, "fork/ops_per_s")->changes[0].kind, ChangeKind::better);
    Spec slow = with_rates(scaled(200), "c");
    slow.latency_ns *= 2;
    Report lat = compare_rounds(with_rates(scaled(200), "a"), slow);
    // funclat's avg is declared lower-is-better (bpf/funclat/funclat_probe.h).
    EXPECT_EQ(row(lat, "fork/funclat:kernel_clone/avg")->changes[0].kind, ChangeKind::worse);
    // Its count has no better direction: twice the calls is a change, neither better nor worse.
    Spec more = with_rates(scaled(200), "d");
    more.calls *= 2;
    const Report counted = compare_rounds(with_rates(scaled(200), "a"), more);
    const MetricRow* count = row(counted, "fork/funclat:kernel_clone/count");
    ASSERT_TRUE(count);
    EXPECT_EQ(count->better, Better::unknown);
    EXPECT_TRUE(count->changes[0].significant);
    EXPECT_EQ(count->changes[0].kind, ChangeKind::changed);
}

TEST(Compare, BigButNoisyChangeIsNotSignificant) {
    V noisy_a{100, 160, 90, 150, 100}, noisy_b{80, 150, 70, 140, 90};
    Report r = compare_rounds(with_rates(noisy_a, "a"), with_rates(noisy_b, "b"));
    const Change& c = row(r, "fork/ops_per_s")->changes[0];
    EXPECT_LT(*c.pct, -5);
    EXPECT_GT(*c.p, 0.05);
    EXPECT_FALSE(c.significant);
}

TEST(Compare, OneSampleASideIsNotTestedExceptByThreshold) {
    Spec a = with_rates({200}, "a"), b = with_rates({150}, "b");
    Report welch = compare_rounds(a, b);
    EXPECT_EQ(row(welch, "fork/ops_per_s")->changes[0].kind, ChangeKind::not_tested);
    EXPECT_FALSE(row(welch, "fork/ops_per_s")->changes[0].significant);
    CompareOptions o;
    o.method = Method::threshold;
    EXPECT_TRUE(row(compare_rounds(a, b, o), "fork/ops_per_s")->changes[0].significant);
}

TEST(Compare, LkpRuleIsStricter) {
    CompareOptions lkp;
    lkp.method = Method::lkp;
    // Means 10 % apart but overlapping ranges: Welch says yes, LKP says no.
    V a{100, 104, 96, 102, 98, 100, 103, 97}, b{90, 99, 81, 95, 85, 90, 93, 87};
    Report w = compare_rounds(with_rates(a, "a"), with_rates(b, "b"));
    Report l = compare_rounds(with_rates(a, "a"), with_rates(b, "b"), lkp);
    EXPECT_TRUE(row(w, "fork/ops_per_s")->changes[0].significant);
    EXPECT_FALSE(row(l, "fork/ops_per_s")->changes[0].significant);
    Report two = compare_rounds(with_rates({100, 101}, "a"), with_rates({50, 51}, "b"), lkp);
    EXPECT_EQ(row(two, "fork/ops_per_s")->changes[0].kind, ChangeKind::not_tested);
}

TEST(SideLabels, ShortestDistinctPath) {
    using L = std::vector<std::string>;
    EXPECT_EQ(side_labels({"out/base.json", "out/patched.json"}), (L{"base", "patched"}));
    EXPECT_EQ(side_labels({"gen/r1.json", "cloud/r1.json"}), (L{"gen/r1", "cloud/r1"}));
    EXPECT_EQ(side_labels({"a/x/r1.json", "b/x/r1.json", "c/r2.json"}), (L{"a/x/r1", "b/x/r1", "r2"}));
    EXPECT_EQ(side_labels({"r1.json", "../old/r1.json"}), (L{"r1", "old/r1"}));
    EXPECT_EQ(side_labels({"runs/", "other/runs"}), (L{"runs", "other/runs"}));
    EXPECT_EQ(side_labels({"same/r1.json", "same/r1.json"}), (L{"same/r1", "same/r1#2"}));
    EXPECT_EQ(side_labels({"a.json,b.json", "c.json,d.json"}), (L{"base", "new"}));
}

// Text and Markdown for people: a time at its scale with its unit (funclat's avg of
// 2 500 000 ns is "2.50 ms"), a metric that is 0 everywhere listed once instead of as a row,
// and the instruction-counting clock named where the times are.
TEST(Compare, TextShowsTimesInTheirUnitAndZerosOnce) {
    Spec a = with_rates(scaled(200), "a");
    for (int r = 0; r < 5; r++)
        a.extra_records.push_back({{"v", 3}, {"type", "probe"}, {"phase", "fork"}, {"round", r},
                                   {"probe", "wakeups"}, {"supported", true}, {"mechanism", "tp_btf/sched_wakeup"},
                                   {"dropped", 0},
                                   {"metrics", {{"dropped", {{"value", 0}, {"unit", "wake-ups"},
                                                             {"better", "lower"}, {"agg", "amean"}}}}}});
    a.clock = "icount";
    Spec b = a;
    b.run_id = "00000000000000000000000000000002";
    const Report r = compare_rounds(a, b);
    const std::string text = render(r, {Format::text, false});
    EXPECT_NE(text.find("Amean     avg           2.50 ms"), std::string::npos) << text;
    EXPECT_EQ(text.find("2500000"), std::string::npos) << text;
    EXPECT_EQ(text.find("dropped "), std::string::npos) << "a row of zeros:\n" << text;
    EXPECT_NE(text.find("0 in every sample on every side: fork/wakeups/dropped"), std::string::npos) << text;
    EXPECT_NE(text.find("guest time counts instructions, 16 ns each"), std::string::npos) << text;
    const std::string md = render(r, {Format::markdown, false});
    EXPECT_NE(md.find("| fork/funclat:kernel\\_clone/avg | ms | Amean | 2.50 ± "), std::string::npos) << md;
    EXPECT_NE(md.find("guest time counts instructions, 16 ns each"), std::string::npos) << md;
}

// A linear histogram with nothing inside its buckets on any side is not shown; a warning
// says where the counts are and how to set the range.
TEST(Compare, LinearHistogramOutsideItsRangeIsAWarning) {
    Spec a = with_rates(scaled(200), "a"), b = with_rates(scaled(200), "b");
    a.calls_over_range = b.calls_over_range = true;
    const Report r = compare_rounds(a, b);
    std::vector<std::string> ids;
    for (const auto& h : r.histograms)
        ids.push_back(h.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"fork/funclat:kernel_clone/log2"}));
    EXPECT_TRUE(has_warning(r, "fork/funclat:kernel_clone/linear: every count is outside its buckets (<0, >=10)"));
    EXPECT_TRUE(has_warning(r, "initbench.funclat.hist"));
    // One side with calls inside: shown.
    b.calls_over_range = false;
    EXPECT_EQ(compare_rounds(a, b).histograms.size(), 2u);
}

// A histogram with no count on any side (funclat in a phase without calls) is not shown.
TEST(Compare, EmptyHistogramsAreNotShown) {
    Spec a = with_rates(scaled(200), "a"), b = with_rates(scaled(200), "b");
    a.no_calls = b.no_calls = true;
    const Report r = compare_rounds(a, b);
    EXPECT_TRUE(r.histograms.empty()) << r.histograms.front().id;
    EXPECT_FALSE(has_warning(r, "outside its buckets"));
    EXPECT_EQ(render(r, {Format::text, false}).find("an empty histogram"), std::string::npos);
    b.no_calls = false; // calls on one side: both histograms shown
    EXPECT_EQ(compare_rounds(a, b).histograms.size(), 2u);
}

// A phase's glob is its own metrics; its probes' need another segment.
TEST(MetricGlob, StarStopsAtASlashInTheId) {
    EXPECT_TRUE(metric_matches("hackbench/*", "hackbench/result", "result"));
    EXPECT_FALSE(metric_matches("hackbench/*", "hackbench/funclat:kernel_clone/avg", "avg"));
    EXPECT_TRUE(metric_matches("hackbench/*/*", "hackbench/funclat:kernel_clone/avg", "avg"));
    EXPECT_TRUE(metric_matches("*/funclat:*/avg", "fork/funclat:kernel_clone/avg", "avg"));
    EXPECT_TRUE(metric_matches("avg", "fork/funclat:kernel_clone/avg", "avg"));
    EXPECT_TRUE(metric_matches("*", "fork/funclat:kernel_clone/avg", "avg")); // every name
}

TEST(Compare, PoolsFilesOfASide) {
    auto r = compare_sides(
        {Side{"base",
              {run_of(with_rates(scaled(200, 3), "a1")), run_of(with_rates(scaled(201, 2), "a2"))}},
         Side{"new", {run_of(with_rates(scaled(150, 4), "b1"), "b")}}},
        {});
    ASSERT_TRUE(r.ok());
    const MetricRow* m = row(r.value(), "fork/ops_per_s");
    EXPECT_EQ(m->sides[0].summary->n, 5u);
    EXPECT_EQ(m->sides[1].summary->n, 4u);
}

} // namespace
} // namespace initbench
