// Unit tests of `initbench compare` and bisect-step's decisions on synthetic results
// documents: reading and refusing files, finding metrics by structure, significance,
// warnings, output formats and --fail-on rules. No QEMU.
#include "host/cli/bisect.h"
#include "common/record.h"
#include "host/cli/ab.h"
#include "host/compare/compare.h"
#include "host/compare/compare_checks.h"
#include "host/compare/sequential.h"
#include "host/cli/compare_cli.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>

namespace initbench {
namespace {

using nlohmann::json;
using V = std::vector<double>;

// Small deviations around 1 that look like noise, the same on every call.
const V kJitter = {0.996, 1.004, 1.0, 1.003, 0.997};

struct Spec {
    std::string run_id = "00000000000000000000000000000001";
    std::string clock = "wall";
    std::string icount = "shift=4,align=off,sleep=off";
    std::string build_id = "6a2b4ac77585b8cf102cba771300e573c8489b69";
    std::string cmdline = "console=ttyS0 panic=-1 initbench.phases=fork";
    std::string image = "1111";
    std::string verdict = "ok";
    std::string status = "complete";
    double duration = 1;
    V rates = {200, 200, 200};
    double latency_ns = 2500000;
    double calls = 100; // funclat's count in each round
    bool calls_over_range = false; // funclat's linear histogram: every call above its buckets
    bool no_calls = false;         // funclat saw no call: both histograms empty
    json extra_records = json::array();
    // The environment: "" leaves it out, as documents written before it was recorded.
    std::string qemu, image_version, image_commit;
};

json make_doc(const Spec& s) {
    json records = json::array();
    records.push_back({{"v", 1},
                       {"type", "header"},
                       {"run_id", s.run_id},
                       {"kernel",
                        {{"release", "6.1.0-57-amd64"},
                         {"build_id", s.build_id},
                         {"cmdline", s.cmdline},
                         {"cpus_online", 1}}},
                       {"config",
                        {{"values",
                          {{"phases", {"fork"}},
                           {"duration", s.duration},
                           {"rounds", s.rates.size()},
                           {"timeout", 600}}}}}});
    for (size_t r = 0; r < s.rates.size(); r++) {
        records.push_back({{"v", 1},
                           {"type", "phase"},
                           {"phase", "fork"},
                           {"round", r},
                           {"ops", 1000},
                           {"metrics",
                            {{"ops_per_s",
                              {{"value", s.rates[r]},
                               {"unit", "forks/s"},
                               {"agg", "hmean"},
                               {"better", "higher"}}}}}});
        records.push_back({{"v", 1},
                           {"type", "probe"},
                           {"phase", "fork"},
                           {"round", r},
                           {"probe", "funclat"},
                           {"function", "kernel_clone"},
                           {"supported", true},
                           {"mechanism", "fentry/fexit"},
                           {"unit", "ns"},
                           {"count", s.calls * kJitter[r % kJitter.size()]},
                           {"avg", s.latency_ns * kJitter[r % kJitter.size()]},
                           {"log2", s.no_calls ? json::array() : json{{1048576, 60}, {2097152, 40}}},
                           {"linear",
                            {{"unit", "us"},
                             {"min", 0},
                             {"step", 5},
                             {"max", 10},
                             {"under", 0},
                             {"over", s.no_calls ? 0 : s.calls_over_range ? 100 : 1},
                             {"buckets", s.no_calls || s.calls_over_range ? json{0, 0} : json{50, 49}}}}});
    }
    for (const auto& r : s.extra_records)
        records.push_back(r);
    records.push_back({{"v", 1}, {"type", "end"}, {"records", records.size()}});
    json argv = {"qemu-system-x86_64", "-accel", "tcg"};
    if (s.clock == "icount") {
        argv.push_back("-icount");
        argv.push_back(s.icount);
    }
    if (!s.image_version.empty())
        records[0]["initbench"] = s.image_version;
    if (!s.image_commit.empty())
        records[0]["initbench_commit"] = s.image_commit;
    json doc = {{"initbench_results", 1},
                 {"verdict", s.verdict},
                 {"exit_code", 0},
                 {"reason", "complete"},
                 {"log", {{"status", s.status}}},
                 {"host",
                  {{"qemu_argv", argv},
                   {"accel", "tcg"},
                   {"clock", s.clock},
                   {"arch", "x86_64"},
                   {"memory_mb", 1024},
                   {"kernel", {{"sha256", "aaaa"}}},
                   {"image", {{"sha256", s.image}}}}},
                 {"records", records}};
    if (!s.qemu.empty())
        doc["environment"] = {{"qemu", {{"binary", "qemu-system-x86_64"}, {"banner", s.qemu}}}};
    return doc;
}

RunFile run_of(const Spec& s, const std::string& path = "run.json") {
    auto r = parse_results(make_doc(s).dump(), path);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? r.value() : RunFile{};
}

V scaled(double base, size_t n = 5) {
    V out;
    for (size_t i = 0; i < n; i++)
        out.push_back(base * kJitter[i % kJitter.size()]);
    return out;
}

Spec with_rates(V rates, std::string run_id, std::string build_id = "") {
    Spec s;
    s.rates = std::move(rates);
    s.run_id = std::move(run_id);
    if (!build_id.empty())
        s.build_id = build_id;
    return s;
}

const MetricRow* row(const Report& r, const std::string& id) {
    for (const auto& m : r.metrics)
        if (m.id == id)
            return &m;
    return nullptr;
}

Report compare_two(const Spec& a, const Spec& b, CompareOptions o = {}) {
    auto r =
        compare_sides({Side{"base", {run_of(a, "a.json")}}, Side{"new", {run_of(b, "b.json")}}}, o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? r.value() : Report{};
}

// One wall-clock run a side with its rounds judged as samples (--unit round): the tests of
// the methods themselves. By default (--unit auto) such a comparison gives no verdicts.
Report compare_rounds(const Spec& a, const Spec& b, CompareOptions o = {}) {
    o.unit = SampleUnit::round;
    return compare_two(a, b, o);
}

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
    EXPECT_LT(*m->changes[0].p, 0.001);
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
    const Change& w = row(one, "fork/ops_per_s")->changes[0];
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
    Report same = compare_rounds(with_rates({200, 200, 200}, "a"), with_rates({204, 204, 204}, "b"));
    EXPECT_EQ(row(same, "fork/ops_per_s")->changes[0].verdict, Decision::same);
    Report diff = compare_rounds(with_rates({200, 200, 200}, "a"), with_rates({180, 180, 180}, "b"));
    EXPECT_EQ(row(diff, "fork/ops_per_s")->changes[0].verdict, Decision::different);
    EXPECT_EQ(*row(diff, "fork/ops_per_s")->changes[0].detectable_pct, 0);
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

bool has_warning(const Report& r, const std::string& part);

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

Spec with_clock(Spec s, const std::string& clock) {
    s.clock = clock;
    return s;
}

bool has_warning(const Report& r, const std::string& part) {
    for (const auto& w : r.warnings)
        if (w.find(part) != std::string::npos)
            return true;
    return false;
}

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

// ---- output ------------------------------------------------------------------------------

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
    EXPECT_NE(text.find("Welch's t-test at 95 %"), std::string::npos);
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
    EXPECT_NE(text.find("no significant difference"), std::string::npos);
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

// ---- --fail-on ---------------------------------------------------------------------------

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

// ---- no verdict on rounds of one wall-clock boot a side (issue 13) -------------------------

// One boot a side whose rounds agree closely but 30 % apart: rounds would call it significant.
Spec slow_spec(const std::string& clock) {
    Spec s = with_clock(with_rates(scaled(140), "b", "bb"), clock);
    s.latency_ns *= 1.4;
    return s;
}

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
    EXPECT_TRUE(std::regex_search(csv, std::regex(R"(\nfork/ops_per_s,[^\n]*,-30(\.\d+)?,,,unknown,unqualified,,\n)")))
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

// `initbench compare ARGS` through its CLI: exit code, stdout and stderr.
struct CliRun {
    int code = 0;
    std::string out, err;
};

class CompareCliTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "ib-compare-test-XXXXXX").string();
        ASSERT_TRUE(::mkdtemp(tmpl.data()));
        dir_ = tmpl;
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string write(const std::string& name, const Spec& s) { return write_doc(name, make_doc(s)); }
    std::string write_doc(const std::string& name, const json& doc) {
        std::string path = dir_ + "/" + name;
        std::ofstream(path) << doc.dump();
        return path;
    }

    static CliRun run(std::vector<std::string> args) {
        CLI::App app;
        add_compare_command(app);
        args.insert(args.begin(), {"initbench", "compare", "--format", "text"});
        std::vector<const char*> argv;
        for (const auto& a : args)
            argv.push_back(a.c_str());
        CliRun r;
        ::testing::internal::CaptureStdout();
        ::testing::internal::CaptureStderr();
        try {
            app.parse(int(argv.size()), argv.data());
        } catch (const CLI::RuntimeError& e) {
            r.code = e.get_exit_code();
        }
        r.out = ::testing::internal::GetCapturedStdout();
        r.err = ::testing::internal::GetCapturedStderr();
        return r;
    }

    std::string dir_;
};

TEST_F(CompareCliTest, OneWallClockRunASideExitsZeroWithoutMarks) {
    std::string a = write("head.json", with_rates(scaled(200), "a"));
    std::string b = write("patch.json", slow_spec("wall"));
    CliRun r = run({a, b});
    EXPECT_EQ(r.code, kCompareOk) << r.err;
    EXPECT_NE(r.out.find("~ -30."), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('*'), std::string::npos) << r.out;
    CliRun fail = run({a, b, "--fail-on", "ops_per_s:-5%"});
    EXPECT_EQ(fail.code, kCompareFailed);
    EXPECT_NE(fail.err.find("FAIL ops_per_s:-5%: fork/ops_per_s -30."), std::string::npos)
        << fail.err;
    EXPECT_NE(fail.err.find("the failure is on the effect size alone"), std::string::npos)
        << fail.err;
    CliRun round = run({a, b, "--unit", "round"});
    EXPECT_EQ(round.code, kCompareOk);
    EXPECT_NE(round.out.find("* -30."), std::string::npos) << round.out;
}

TEST_F(CompareCliTest, DifferentQemuIsAWarningOnStderrAndInTheHeader) {
    Spec a = with_rates(scaled(200), "a"), b = with_rates(scaled(200), "b", "bb");
    a.qemu = "QEMU emulator version 7.2.17";
    b.qemu = "QEMU emulator version 8.2.2";
    CliRun r = run({write("a.json", a), write("b.json", b)});
    EXPECT_EQ(r.code, kCompareOk) << r.err;
    EXPECT_NE(r.err.find("initbench compare: warning: QEMU differs"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("warning: QEMU differs"), std::string::npos) << r.out;
    EXPECT_LT(r.out.find("warning: QEMU differs"), r.out.find("fork")) << "in the header, before the table";
}

TEST_F(CompareCliTest, IcountRoundsAreMarkedAndFailOnIsQualified) {
    std::string a = write("head.json", with_clock(with_rates(scaled(200), "a"), "icount"));
    std::string b = write("patch.json", slow_spec("icount"));
    CliRun r = run({a, b});
    EXPECT_EQ(r.code, kCompareOk);
    EXPECT_NE(r.out.find("* -30."), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("no verdict"), std::string::npos);
    CliRun fail = run({a, b, "--fail-on", "ops_per_s:-5%"});
    EXPECT_EQ(fail.code, kCompareFailed);
    EXPECT_EQ(fail.err.find("effect size alone"), std::string::npos) << fail.err;
}

// ---- the gate: a failed side never passes ---------------------------------------------------

// The user's case: the second run misspelled a key, so its phase has no ops_per_s and an
// error record names the key. The rule would never fire on a missing metric; the gate fails.
TEST_F(CompareCliTest, GateFailsOnAMissingMetricAndOnErrorRecords) {
    std::string a = write("good.json", with_rates(scaled(200), "a"));
    Spec typo = with_rates(scaled(200), "b", "bb");
    typo.verdict = "errors";
    typo.extra_records = json::array({{{"v", 1}, {"type", "error"}, {"what", "config"},
                                       {"key", "initbench.duraton"}, {"value", "2"},
                                       {"source", "cmdline"},
                                       {"reason", "unknown key (did you mean duration?)"}}});
    json doc = make_doc(typo);
    for (auto& r : doc["records"])
        if (r["type"] == "phase")
            r["metrics"].erase("ops_per_s");
    std::string b = write_doc("typo.json", doc);
    CliRun r = run({a, b, "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(r.code, kCompareFailed) << r.err;
    EXPECT_NE(r.err.find("FAIL typo: " + b + ": error record: config (initbench.duraton=2): unknown key"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find("FAIL fork/ops_per_s:-5%: fork/ops_per_s is missing on typo"), std::string::npos)
        << r.err;
    // The explicit opt-out is the old gate: nothing fired.
    CliRun allowed = run({a, b, "--fail-on", "fork/ops_per_s:-5%", "--allow-missing"});
    EXPECT_EQ(allowed.code, kCompareOk) << allowed.err;
    EXPECT_EQ(allowed.err.find("FAIL"), std::string::npos) << allowed.err;
    // Error records alone, every metric there, fail the gate too.
    Spec errors = with_rates(scaled(200), "c", "cc");
    errors.verdict = "errors";
    errors.extra_records = json::array({{{"v", 1}, {"type", "error"}, {"what", "phase fork"},
                                         {"key", "load.x"}, {"reason", "exited with status 2"}}});
    CliRun e = run({a, write("errors.json", errors), "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(e.code, kCompareFailed) << e.err;
    EXPECT_NE(e.err.find("error record: phase fork (load.x): exited with status 2"), std::string::npos) << e.err;
    // Without a rule compare still compares, and warns.
    EXPECT_EQ(run({a, b}).code, kCompareOk);
}

TEST_F(CompareCliTest, GateFailsOnARunThatDidNotComplete) {
    std::string a = write("good.json", with_rates(scaled(200), "a"));
    Spec cut = with_rates(scaled(200), "b", "bb");
    cut.status = "incomplete";
    cut.verdict = "incomplete";
    std::string b = write("cut.json", cut);
    CliRun r = run({a, b, "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(r.code, kCompareFailed) << r.err;
    EXPECT_NE(r.err.find("FAIL cut: " + b + ": the log is incomplete"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cut has no complete run"), std::string::npos) << r.err;
    // Without the gate a cut-off log is refused, as before.
    EXPECT_EQ(run({a, b}).code, kCompareRefused);
    EXPECT_EQ(run({a, b, "--fail-on", "fork/ops_per_s:-5%", "--allow-missing"}).code, kCompareRefused);
}

TEST_F(CompareCliTest, SameKernelWarningSaysWhichParametersItCompared) {
    Spec a = with_rates(scaled(200), "a"), b = with_rates(scaled(200), "b");
    b.cmdline = a.cmdline + " initbench.duraton=2";
    CliRun r = run({write("a.json", a), write("b.json", b)});
    EXPECT_NE(r.out.find("the same kernel parameters besides initbench.*"), std::string::npos) << r.out;
    b.cmdline = a.cmdline + " nokaslr";
    r = run({write("a.json", a), write("b.json", b)});
    EXPECT_EQ(r.out.find("the same kernel parameters"), std::string::npos) << r.out;
}

// ---- bisect-step's decisions -------------------------------------------------------------

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

TEST(BisectDecision, Threshold) {
    EXPECT_EQ(decide_against_threshold(scaled(40), 50, -1, 0.95, false).exit_code, kBisectBad);
    EXPECT_EQ(decide_against_threshold(scaled(60), 50, -1, 0.95, false).exit_code, kBisectGood);
    EXPECT_EQ(decide_against_threshold(V{45, 55}, 50, -1, 0.95, false).exit_code, kBisectSkip);
    EXPECT_EQ(decide_against_threshold(V{60}, 50, +1, 0.95, true).exit_code, kBisectBad);
    EXPECT_EQ(decide_against_threshold(V{60}, 50, +1, 0.95, false).exit_code, kBisectSkip);
}

} // namespace
} // namespace initbench
