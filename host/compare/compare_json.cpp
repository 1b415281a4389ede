// compare's JSON output: everything, with each side's samples, p-values and verdicts.
#include "host/compare/compare_render.h"

namespace initbench {

using nlohmann::json;
using namespace compare_render;

namespace {

json opt(std::optional<double> x) { return x ? json(*x) : json(); }

json change_json(const Change& c) {
    const bool judged = c.kind != ChangeKind::unqualified;
    return {{"pct", opt(c.pct)},
            {"p", opt(c.p)},
            {"significant", judged ? json(c.significant) : json()},
            {"verdict", verdict_name(c.verdict)},
            {"direction", kind_name(c.kind)},
            {"equivalence_p", opt(c.equivalence_p)},
            {"interval_pct", c.ci_lo_pct && c.ci_hi_pct ? json::array({*c.ci_lo_pct, *c.ci_hi_pct}) : json()},
            {"detectable_pct", opt(c.detectable_pct)},
            {"samples_needed", c.samples_needed ? json(*c.samples_needed) : json()},
            {"strata", c.strata},
            {"note", c.note}};
}

// One metric: each side's samples and summary, and from the second side on its change
// against the first.
json metric_json(const MetricRow& m) {
    json per_side = json::array();
    for (size_t i = 0; i < m.sides.size(); i++) {
        const auto& st = m.sides[i];
        json j = {{"samples", st.samples}};
        if (st.summary)
            j.update({{"n", st.summary->n},
                      {"mean", st.summary->mean},
                      {"stddev", st.summary->stddev},
                      {"cov", opt(st.summary->cov)},
                      {"min", st.summary->min},
                      {"max", st.summary->max}});
        else
            j["error"] = st.error;
        if (i)
            j["change"] = change_json(m.changes[i - 1]);
        per_side.push_back(std::move(j));
    }
    return {{"id", m.id},
            {"group", m.group},
            {"name", m.name},
            {"unit", m.unit},
            {"agg", std::string(agg_label(m.agg))},
            {"better", better_name(m.better)},
            {"sides", std::move(per_side)}};
}

json histogram_json(const HistRow& h) {
    json changes = json::array();
    for (const auto& c : h.changes) {
        json j = {{"significant", c.unqualified ? json() : json(c.significant)},
                  {"note", c.note},
                  {"boots", {c.runs_base, c.runs}},
                  {"min_p", c.min_p}};
        if (c.test)
            j.update({{"ks_d", c.test->ks_d}, {"p", c.test->p}, {"splits", c.test->splits}, {"exact", c.test->exact}});
        if (c.events) // the pooled events' chi-square: a description, not the verdict's test
            j["events"] = {{"chi2", c.events->chi2}, {"df", c.events->df}, {"p", c.events->p}};
        changes.push_back(std::move(j));
    }
    return {{"id", h.id},
            {"unit", h.unit},
            {"buckets", h.labels},
            {"counts", h.counts},
            {"changes", std::move(changes)}};
}

} // namespace

nlohmann::json report_json(const Report& report) {
    json sides = json::array();
    for (const auto& s : report.sides)
        sides.push_back({{"label", s.label},
                         {"files", s.files},
                         {"run_ids", s.run_ids},
                         {"kernel_release", s.kernel_release},
                         {"build_id", s.build_id},
                         {"qemu", s.qemu},
                         {"image", s.image},
                         {"host_cpus", s.host_cpus}});
    json metrics = json::array();
    for (const auto& m : report.metrics)
        metrics.push_back(metric_json(m));
    json hists = json::array();
    for (const auto& h : report.histograms)
        hists.push_back(histogram_json(h));
    return {{"initbench_compare", 1},
            {"verdict_lines", verdict_lines(report)},
            {"method", method_name(report.options.method)},
            {"method_text", method_sentence(report)},
            {"confidence", report.options.confidence},
            {"min_effect_pct", report.options.min_effect_pct},
            {"clock", report.clock},
            {"unit", report.unit == SampleUnit::run ? "run" : "round"},
            {"strata", report.strata},
            {"clock_detail", report.clock_detail},
            {"verdicts", report.no_verdict.empty()},
            {"no_verdict", report.no_verdict.empty() ? json() : json(report.no_verdict)},
            {"sides", std::move(sides)},
            {"warnings", report.warnings},
            {"metrics", std::move(metrics)},
            {"histograms", std::move(hists)}};
}

} // namespace initbench
