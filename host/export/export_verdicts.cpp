// The verdicts against the baseline: one test per compared metric of each later side, its
// status the verdict's. FAIL is a DIFFERENT change in the worse direction (or, for a metric a
// --fail-on rule names, one past the rule's limit); PASS is SAME, or DIFFERENT for the
// better. UNKNOWN is DONE: the comparison ran and says nothing of the code, and DONE is the
// status that leaves a build's summary alone (FAIL or PASS would claim what the samples
// cannot). So is a DIFFERENT change of a metric that declares no better direction.
#include "host/export/export_model.h"

#include "common/text.h"
#include "host/compare/compare_render.h"
#include "host/compare/stats.h"

#include <cmath>

namespace initbench::exporting {

using nlohmann::json;

namespace {

// The change's interval (compare's, Change::ci_lo_pct), when it has one.
std::optional<std::pair<double, double>> interval(const MetricRow& m, size_t side, const CompareOptions&) {
    const Change& c = m.changes[side - 1];
    if (!c.ci_lo_pct || !c.ci_hi_pct)
        return std::nullopt;
    return std::pair{*c.ci_lo_pct, *c.ci_hi_pct};
}

// The --fail-on rules' lines that fire on this one change, as compare's gate finds them.
std::vector<std::string> fired(const Report& report, const MetricRow& m, size_t side,
                               const std::vector<FailRule>& rules) {
    Report one;
    one.sides = {report.sides[0], report.sides[side]};
    MetricRow row = m;
    row.sides = {m.sides[0], m.sides[side]};
    row.changes = {m.changes[side - 1]};
    one.metrics = {row};
    return apply_fail_rules(one, rules).fired;
}

bool named_by_rule(const MetricRow& m, const std::vector<FailRule>& rules) {
    for (const auto& r : rules)
        if (metric_matches(r.pattern, m.id, m.name))
            return true;
    return false;
}

// The status, and for a FAIL the line that says why.
std::pair<TestStatus, std::string> status_of(const Report& report, const MetricRow& m, size_t side,
                                         const std::vector<FailRule>& rules) {
    const Change& c = m.changes[side - 1];
    if (c.verdict == Decision::same)
        return {TestStatus::pass, ""};
    if (c.verdict != Decision::different)
        return {TestStatus::done, ""}; // UNKNOWN: never PASS or FAIL
    if (named_by_rule(m, rules)) {
        auto lines = fired(report, m, side, rules);
        return lines.empty() ? std::pair{TestStatus::pass, std::string()} : std::pair{TestStatus::fail, join(lines, "; ")};
    }
    if (c.kind == ChangeKind::worse)
        return {TestStatus::fail, "DIFFERENT, in the worse direction"};
    if (c.kind == ChangeKind::better)
        return {TestStatus::pass, ""};
    return {TestStatus::done, ""}; // DIFFERENT, but the metric declares no better direction
}

std::string upper(std::string s) {
    for (char& ch : s)
        ch = char(std::toupper(static_cast<unsigned char>(ch)));
    return s;
}

void add_figures(Test& t, const Report& report, const MetricRow& m, size_t side) {
    const Change& c = m.changes[side - 1];
    auto opt = [](auto x) { return x ? json(*x) : json(); };
    t.misc = {{"metric", m.id},
              {"verdict", upper(compare_render::verdict_name(c.verdict))},
              {"direction", compare_render::kind_name(c.kind)},
              {"change_pct", opt(c.pct)},
              {"p", opt(c.p)},
              {"equivalence_p", opt(c.equivalence_p)},
              {"samples_base", m.sides[0].samples.size()},
              {"samples", m.sides[side].samples.size()},
              {"detectable_pct", opt(c.detectable_pct)},
              {"samples_needed", opt(c.samples_needed)},
              {"method", compare_render::method_name(report.options.method)},
              {"confidence", report.options.confidence},
              {"min_effect_pct", report.options.min_effect_pct},
              {"sample_unit", report.unit == SampleUnit::run ? "run" : "round"},
              {"baseline", report.sides[0].label},
              {"baseline_release", report.sides[0].kernel_release}};
    if (auto ci = interval(m, side, report.options))
        t.misc.emplace_back("interval_pct", json::array({ci->first, ci->second}));
    if (report.options.look)
        t.misc.emplace_back("look", std::to_string(report.options.look->number) + " of " +
                                        std::to_string(report.options.look->looks));
    if (!report.no_verdict.empty())
        t.misc.emplace_back("no_verdict", report.no_verdict);
    if (c.verdict == Decision::unknown && c.kind != ChangeKind::unqualified)
        t.misc.emplace_back("what_would_decide", compare_render::undecided_text(c, m.sides[0].samples.size(),
                                                                                m.sides[side].samples.size()));
    std::erase_if(t.misc, [](const Figure& f) { return f.second.is_null(); });
}

// "fork/ops_per_s -12.3 % [-14.0, -10.6] DIFFERENT vs 6.1.0-57-amd64 baseline"
std::string comment_of(const Report& report, const MetricRow& m, size_t side) {
    const Change& c = m.changes[side - 1];
    std::string line = m.id + " " + (c.pct ? format_number(*c.pct, "%+.1f") + " %" : std::string("n/a"));
    if (auto ci = interval(m, side, report.options))
        line += " [" + format_number(ci->first, "%+.1f") + ", " + format_number(ci->second, "%+.1f") + "]";
    const std::string& base = report.sides[0].kernel_release.empty() ? report.sides[0].label
                                                                      : report.sides[0].kernel_release;
    return line + " " + upper(compare_render::verdict_name(c.verdict)) + " vs " + base + " baseline";
}

std::string side_key(const SideInfo& s) { return digest(join(s.run_ids, ",")); }

} // namespace

std::vector<Test> verdict_tests(const Report& report, const std::vector<SideFacts>& facts,
                                const std::vector<FailRule>& fail_on) {
    std::vector<Test> tests;
    for (const MetricRow& m : report.metrics)
        for (size_t side = 1; side < m.sides.size() && side <= m.changes.size(); side++) {
            Test t;
            t.id = "verdict:" + side_key(report.sides[0]) + ":" + side_key(report.sides[side]) + ":" + m.id;
            t.kernel = facts[side].kernel;
            t.platform = facts[side].platform.words;
            t.environment = facts[side].platform.figures;
            t.path = path_of(m.id);
            t.path.insert(t.path.begin(), "compare");
            t.suite = report.sides[side].label + " vs " + report.sides[0].label;
            t.name = m.id;
            auto [status, why] = status_of(report, m, side, fail_on);
            t.status = status;
            t.verdict = m.changes[side - 1].verdict;
            t.value = m.changes[side - 1].pct;
            t.unit = "%";
            t.start_time = facts[side].start_time;
            t.comment = comment_of(report, m, side);
            add_figures(t, report, m, side);
            for (const auto& f : t.misc)
                if (f.first == "what_would_decide")
                    t.excerpt = f.second.get<std::string>();
            if (!why.empty())
                t.excerpt = why;
            tests.push_back(std::move(t));
        }
    return tests;
}

} // namespace initbench::exporting
