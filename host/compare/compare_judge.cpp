// compare's statistics: what one sample is, each metric's and histogram's summary per side,
// and the change against the base side judged by the chosen method (host/compare/stats.h).
#include "host/compare/compare.h"

#include "common/text.h"
#include "host/compare/compare_checks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace initbench {

namespace {

std::string pct_words(double pct) { return format_number(pct, "%g") + " %"; }

// auto_ unresolved (judge_change called without compare_sides) takes the safe test.
bool permutes(Method m) { return m == Method::permutation || m == Method::auto_; }

// What does not depend on the method: the equivalence test against +-min-effect, the smallest
// change these samples detect, and how many samples a side would likely decide.
void add_equivalence_and_power(Change& c, std::span<const double> base,
                               std::span<const double> next, const CompareOptions& options) {
    if (base.size() < 2 || next.size() < 2)
        return;
    const double alpha = 1 - options.confidence;
    const double base_amean = arithmetic_mean(base);
    if (base_amean == 0) {
        // No percent of 0; but two sides that are 0 throughout (nothing missed) are the same.
        auto zero = [](std::span<const double> xs) {
            return std::all_of(xs.begin(), xs.end(), [](double x) { return x == 0; });
        };
        if (zero(base) && zero(next))
            c.equivalence_p = 0;
        return;
    }
    const double scale = std::fabs(base_amean) / 100; // one percent of the base
    const double margin = options.min_effect_pct * scale;
    if (alpha < 0.5)
        if (auto e = stats::tost(base, next, margin, alpha))
            c.equivalence_p = e.value().p;
    const double sd_a = sample_stddev(base, base_amean);
    const double sd_b = sample_stddev(next, arithmetic_mean(next));
    if (auto d = stats::detectable_difference(sd_a, base.size(), sd_b, next.size(), alpha))
        c.detectable_pct = d.value() / scale;
    if (auto n = stats::samples_to_detect(sd_a, sd_b, margin, alpha)) {
        c.samples_needed = std::max({*n, base.size(), next.size()});
        if (permutes(options.method)) // no fewer than can reach alpha at all
            c.samples_needed = std::max(*c.samples_needed, stats::permutation_min_samples(alpha));
    }
}

// The permutation test's p, or Welch's beyond the sizes it is run at.
std::optional<double> permutation_p(std::span<const double> base, std::span<const double> next,
                                    double confidence) {
    if (auto t = stats::permutation_test(base, next))
        return t.value().p;
    if (auto w = stats::welch(base, next, confidence))
        return w.value().p;
    return std::nullopt;
}

// Why the permutation test could not find a change at these sizes, whatever the samples.
std::string permutation_floor(size_t n_base, size_t n_next, double alpha) {
    return "the permutation test's smallest p with " + std::to_string(n_base) + " and " +
           std::to_string(n_next) + " samples is " + format_number(stats::permutation_min_p(n_base, n_next), "%.3g") +
           ", not below " + format_number(alpha, "%.3g") + ": it needs " +
           std::to_string(stats::permutation_min_samples(alpha)) + " a side to show a change";
}

// Why neither verdict holds, in words a reader can act on.
std::string undecided_reason(const Change& c, const CompareOptions& options) {
    const std::string effect = pct_words(options.min_effect_pct);
    std::string why = c.pct && std::fabs(*c.pct) < options.min_effect_pct && c.p &&
                              *c.p < 1 - options.confidence
                          ? "significant but smaller than " + effect
                          : "not shown to differ by " + effect + " or more";
    return why + ", and not shown to lie within +-" + effect;
}

} // namespace

Method method_for_clock(Method asked, std::string_view clock) {
    if (asked != Method::auto_)
        return asked;
    return clock == "icount" ? Method::welch : Method::permutation;
}

Change judge_change(std::span<const double> base, std::span<const double> next, double base_mean,
                    double next_mean, Better better, const CompareOptions& options) {
    Change c;
    c.pct = stats::percent_change(base_mean, next_mean);
    const bool permutation = permutes(options.method);
    if (permutation)
        c.p = permutation_p(base, next, options.confidence);
    else if (auto w = stats::welch(base, next, options.confidence))
        c.p = w.value().p;
    const bool moved = c.pct ? std::fabs(*c.pct) >= options.min_effect_pct : base_mean != next_mean;
    add_equivalence_and_power(c, base, next, options);
    const bool equivalent = c.equivalence_p && *c.equivalence_p < 1 - options.confidence;
    switch (options.method) {
    case Method::welch:
        if (!c.p)
            c.note = "Welch's t-test needs 2 samples a side (has " + std::to_string(base.size()) +
                     " and " + std::to_string(next.size()) + ")";
        else
            c.significant = *c.p < 1 - options.confidence && moved;
        break;
    case Method::auto_: // compare_sides resolves it for the clock (permutes)
    case Method::permutation:
        if (base.size() < 2 || next.size() < 2)
            c.note = "the permutation test needs 2 samples a side (has " + std::to_string(base.size()) +
                     " and " + std::to_string(next.size()) + ")";
        else if (c.p)
            c.significant = *c.p < 1 - options.confidence && moved;
        break;
    case Method::lkp:
        if (base.size() < 3 || next.size() < 3)
            c.note = "LKP's rule needs 3 samples a side (has " + std::to_string(base.size()) +
                     " and " + std::to_string(next.size()) + ")";
        else
            c.significant = stats::lkp_separated(base, next) && moved;
        break;
    case Method::threshold:
        // No test: the change alone decides, for a deterministic clock.
        c.significant = moved;
        c.verdict = moved ? Decision::different : Decision::same;
        break;
    }
    const bool declined = !c.note.empty(); // the method's own reason
    if (options.method != Method::threshold) {
        if (c.significant)
            c.verdict = Decision::different;
        else if (!declined && equivalent)
            c.verdict = Decision::same;
        else if (!declined && permutation &&
                 stats::permutation_min_p(base.size(), next.size()) >= 1 - options.confidence)
            c.note = permutation_floor(base.size(), next.size(), 1 - options.confidence);
        else if (!declined)
            c.note = undecided_reason(c, options);
    }
    if (declined)
        c.kind = ChangeKind::not_tested;
    else if (c.significant && better == Better::unknown)
        c.kind = ChangeKind::changed;
    else if (c.significant)
        c.kind = (next_mean > base_mean) == (better == Better::higher) ? ChangeKind::better
                                                                       : ChangeKind::worse;
    return c;
}

Result<std::vector<double>> test_samples(const Series& s, SampleUnit unit) {
    if (unit != SampleUnit::run)
        return s.samples;
    std::map<size_t, std::vector<double>> by_run;
    for (size_t i = 0; i < s.samples.size(); i++)
        by_run[s.runs[i]].push_back(s.samples[i]);
    std::vector<double> out;
    for (const auto& [run, values] : by_run) {
        auto summary = stats::summarize(values, s.agg);
        if (!summary)
            return summary.error();
        out.push_back(summary.value().mean);
    }
    return out;
}

namespace {

SampleUnit choose_unit(const std::vector<Side>& sides, SampleUnit asked) {
    if (asked != SampleUnit::auto_)
        return asked;
    bool all_pooled =
        std::all_of(sides.begin(), sides.end(), [](const Side& s) { return s.runs.size() >= 2; });
    return all_pooled ? SampleUnit::run : SampleUnit::round;
}

std::string no_verdict_reason(const std::vector<Side>& sides, const std::string& clock) {
    std::vector<std::string> single;
    for (const auto& side : sides)
        if (side.runs.size() < 2)
            single.push_back(side.label);
    std::string who;
    for (size_t i = 0; i < single.size(); i++)
        who += (i == 0 ? "" : i + 1 == single.size() ? " and " : ", ") + single[i];
    return who + (single.size() > 1 ? " have" : " has") + " one run only" +
           (clock == "wall" ? " on the wall clock" : " (clock " + clock + ", not icount)") +
           ", so the samples are rounds of one boot; they share its host's conditions and "
           "understate the noise between boots. A verdict needs two or more runs a side "
           "(--unit round judges the rounds anyway)";
}

// The figures of a change, without the test that would be misread as a finding.
Change unqualified_change(double base_mean, double next_mean) {
    Change c;
    c.pct = stats::percent_change(base_mean, next_mean);
    c.kind = ChangeKind::unqualified;
    c.note = "not judged: one run a side";
    return c;
}

// One side's samples of a metric (none: the side lacks it) and their summary.
SideStats side_stats(const Series* s, Agg agg, SampleUnit unit) {
    SideStats st;
    if (!s) {
        st.error = "missing";
        return st;
    }
    auto samples = test_samples(*s, unit);
    auto summary =
        samples ? stats::summarize(samples.value(), agg) : Result<stats::Summary>(samples.error());
    if (summary) {
        st.samples = std::move(samples.value());
        st.summary = summary.value();
    } else {
        st.error = summary.error().message();
    }
    return st;
}

Change metric_change(const SideStats& a, const SideStats& b, Better better, const Report& report) {
    if (a.summary && b.summary && !report.no_verdict.empty())
        return unqualified_change(a.summary->mean, b.summary->mean);
    if (a.summary && b.summary)
        return judge_change(a.samples, b.samples, a.summary->mean, b.summary->mean, better,
                            report.options);
    Change missing;
    missing.kind = ChangeKind::not_tested;
    missing.note = !a.summary ? "base: " + a.error : b.error;
    return missing;
}

MetricRow metric_row(const Series& meta, const std::vector<Extracted>& found,
                     const Report& report) {
    MetricRow row{meta.id, meta.group, meta.name, meta.unit, meta.agg, meta.better, {}, {}};
    for (const auto& e : found) {
        auto it = std::find_if(e.metrics.begin(), e.metrics.end(),
                               [&](const Series& s) { return s.id == meta.id; });
        row.sides.push_back(
            side_stats(it == e.metrics.end() ? nullptr : &*it, meta.agg, report.unit));
    }
    for (size_t i = 1; i < row.sides.size(); i++)
        row.changes.push_back(metric_change(row.sides[0], row.sides[i], meta.better, report));
    return row;
}

HistChange histogram_change(const std::vector<double>& base, const std::vector<double>& next,
                            const std::vector<std::string>& conflicts, const Report& report) {
    HistChange hc;
    if (!conflicts.empty()) {
        hc.note = conflicts[0];
    } else if (base.empty() || next.empty()) {
        hc.note = "missing";
    } else if (auto t = stats::compare_histograms(base, next)) {
        hc.test = t.value();
        // Events of one boot a side share its conditions as its rounds do.
        hc.unqualified = !report.no_verdict.empty();
        hc.significant = !hc.unqualified && t.value().p < 1 - report.options.confidence &&
                         t.value().ks_d * 100 >= report.options.min_effect_pct;
    } else {
        hc.note = t.error().message();
    }
    return hc;
}

HistRow histogram_row(const HistSeries& meta, const std::vector<Extracted>& found,
                      const Report& report) {
    HistRow row{meta.id, meta.group, meta.name, meta.unit, {}, {}, {}};
    // Union of the buckets by label, in the order the sides list them.
    for (const auto& e : found)
        for (const auto& h : e.histograms)
            if (h.id == meta.id)
                for (const auto& label : h.labels)
                    if (std::find(row.labels.begin(), row.labels.end(), label) == row.labels.end())
                        row.labels.push_back(label);
    std::vector<std::string> conflicts;
    std::optional<std::string> shape;
    for (const auto& e : found) {
        std::vector<double> counts;
        for (const auto& h : e.histograms) {
            if (h.id != meta.id)
                continue;
            if (h.shape_conflict || (shape && *shape != h.shape))
                conflicts.push_back("the histograms' buckets differ");
            shape = h.shape;
            counts.assign(row.labels.size(), 0);
            for (size_t i = 0; i < h.labels.size(); i++) {
                auto at = std::find(row.labels.begin(), row.labels.end(), h.labels[i]);
                counts[size_t(at - row.labels.begin())] = h.counts[i];
            }
        }
        row.counts.push_back(std::move(counts));
    }
    for (size_t i = 1; i < row.counts.size(); i++)
        row.changes.push_back(histogram_change(row.counts[0], row.counts[i], conflicts, report));
    return row;
}

// A linear histogram whose every count is below or above its buckets on every side (funclat's
// default 0-1000 us under TCG, where a fork takes milliseconds) shows nothing.
bool empty_everywhere(const HistRow& row) {
    for (const auto& counts : row.counts)
        for (double c : counts)
            if (c != 0)
                return false;
    return true;
}

bool outside_its_range(const HistSeries& meta, const HistRow& row) {
    if (!meta.shape.starts_with("linear") || row.labels.size() < 3)
        return false;
    double inside = 0, all = 0;
    for (const auto& counts : row.counts)
        for (size_t i = 0; i < counts.size(); i++) {
            all += counts[i];
            if (i > 0 && i + 1 < counts.size())
                inside += counts[i];
        }
    return all > 0 && inside == 0;
}

// What one sample is, and whether changes get a verdict at all.
void choose_samples(const std::vector<Side>& sides, const std::vector<Extracted>& found,
                    Report& report) {
    const CompareOptions& options = report.options;
    report.unit = choose_unit(sides, options.unit);
    if (options.unit == SampleUnit::auto_ && report.unit == SampleUnit::round &&
        report.clock != "icount" && sides.size() >= 2)
        report.no_verdict = no_verdict_reason(sides, report.clock);
    bool pooled_rounds = false;
    for (size_t i = 0; i < sides.size(); i++)
        for (const auto& s : found[i].metrics)
            pooled_rounds = pooled_rounds || s.samples.size() > sides[i].runs.size();
    if (report.unit == SampleUnit::round && pooled_rounds && report.clock != "icount" &&
        report.no_verdict.empty())
        report.warnings.push_back(
            "the samples are rounds: rounds of one boot share its host's conditions, so on the "
            "wall clock the test understates the noise between boots and flags changes that are "
            "not there; give every side two or more runs (compared run by run)");
}

} // namespace

Result<Report> compare_sides(const std::vector<Side>& sides, const CompareOptions& options) {
    if (sides.empty()) // one side gives its summaries alone (initbench report of one run)
        return Error{"compare needs a side"};
    for (const auto& side : sides)
        if (side.runs.empty())
            return Error{side.label + ": no results files"};
    if (!(options.confidence > 0 && options.confidence < 1) || !(options.min_effect_pct >= 0))
        return Error{"confidence must be in (0, 1) and the minimum effect >= 0"};
    Report report;
    report.options = options;
    IB_TRY(check_sides(sides, options, report));
    report.clock = sides[0].runs[0].clock;
    report.clock_detail = sides[0].runs[0].clock_detail;
    report.options.method = method_for_clock(options.method, report.clock);

    std::vector<Extracted> found;
    for (const auto& side : sides) {
        report.sides.push_back(side_info(side));
        found.push_back(extract(side.runs));
    }
    choose_samples(sides, found, report);
    // Rows in the order the base has them, then what only later sides have.
    std::set<std::string> listed;
    for (const auto& e : found) {
        for (const auto& s : e.metrics)
            if (listed.insert("m" + s.id).second)
                report.metrics.push_back(metric_row(s, found, report));
        for (const auto& h : e.histograms) {
            if (!listed.insert("h" + h.id).second)
                continue;
            HistRow row = histogram_row(h, found, report);
            if (empty_everywhere(row))
                continue; // nothing to compare: the metrics say "0 in every sample on every side"
            if (outside_its_range(h, row)) {
                report.warnings.push_back(h.id + ": every count is outside its buckets (" + row.labels.front() +
                                          ", " + row.labels.back() + ") on every side, so it is not shown; the " +
                                          "log2 histogram has them (funclat: initbench.funclat.hist sets the range)");
                continue;
            }
            report.histograms.push_back(std::move(row));
        }
    }
    return report;
}

} // namespace initbench
