// compare's report: what one sample is, each metric's and histogram's summary per side, the
// host CPU strata, and each side's change judged (compare_judge.cpp).
#include "host/compare/compare.h"

#include "host/compare/compare_checks.h"
#include "common/text.h"

#include <algorithm>
#include <map>
#include <set>

namespace initbench {

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

// The paired test takes run i of every side as one pair: as many runs on each, and the runs
// (their rounds pooled) as the samples.
Status check_pairs(const std::vector<Side>& sides, SampleUnit unit) {
    if (unit == SampleUnit::round)
        return Error{"--method paired pairs runs, not rounds: drop --unit round"};
    for (const auto& side : sides)
        if (side.runs.size() != sides[0].runs.size() || side.runs.size() < 2)
            return Error{"--method paired pairs run i of each side (files in boot order): every side needs "
                         "the same number of runs, two or more (" + sides[0].label + " has " +
                         std::to_string(sides[0].runs.size()) + ", " + side.label + " " +
                         std::to_string(side.runs.size()) + ")"};
    return ok();
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

// The run each of test_samples' samples came from.
std::vector<size_t> sample_runs(const Series& s, SampleUnit unit) {
    if (unit != SampleUnit::run)
        return s.runs;
    const std::set<size_t> runs(s.runs.begin(), s.runs.end()); // test_samples' order
    return {runs.begin(), runs.end()};
}

// One side's samples of a metric (none: the side lacks it), their summary and, where the
// report has strata, each sample's.
SideStats side_stats(const Series* s, Agg agg, const SideInfo& side, const Report& report) {
    SideStats st;
    if (!s) {
        st.error = "missing";
        return st;
    }
    if (report.options.method == Method::paired) {
        // Run i of each side is a pair: a run without the metric would shift the pairs after it.
        const size_t present = sample_runs(*s, report.unit).size();
        if (present != side.run_ids.size()) {
            st.error = "in " + std::to_string(present) + " of " + std::to_string(side.run_ids.size()) +
                       " runs only: --method paired pairs run i of each side, so every run needs it";
            return st;
        }
    }
    auto samples = test_samples(*s, report.unit);
    auto summary =
        samples ? stats::summarize(samples.value(), agg) : Result<stats::Summary>(samples.error());
    if (summary) {
        st.samples = std::move(samples.value());
        st.summary = summary.value();
        if (!report.strata.empty())
            for (size_t run : sample_runs(*s, report.unit)) {
                auto at = std::find(report.strata.begin(), report.strata.end(), side.host_cpus[run]);
                st.strata.push_back(size_t(at - report.strata.begin()));
            }
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
                            report.options, a.strata, b.strata);
    Change missing;
    missing.kind = ChangeKind::not_tested;
    missing.note = !a.summary ? "base: " + a.error : b.error;
    return missing;
}

MetricRow metric_row(const Series& meta, const std::vector<Extracted>& found,
                     const Report& report) {
    MetricRow row{meta.id, meta.group, meta.name, meta.unit, meta.agg, meta.better, {}, {}};
    for (size_t k = 0; k < found.size(); k++) {
        const auto& metrics = found[k].metrics;
        auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Series& s) { return s.id == meta.id; });
        row.sides.push_back(side_stats(it == metrics.end() ? nullptr : &*it, meta.agg, report.sides[k], report));
    }
    for (size_t i = 1; i < row.sides.size(); i++)
        row.changes.push_back(metric_change(row.sides[0], row.sides[i], meta.better, report));
    return row;
}

// The smallest p the permutation of runs can give: the observed split alone, and with equal
// sides its mirror too (the distance does not change when the sides swap).
double smallest_histogram_p(size_t a, size_t b) {
    return (a == b ? 2.0 : 1.0) / stats::choose(a + b, a);
}

// The fewest boots a side (equal sides) at which the permutation of runs can reach `alpha`.
size_t histogram_boots_needed(double alpha) {
    size_t n = 1;
    while (smallest_histogram_p(n, n) >= alpha && n < 1000)
        n++;
    return n;
}

HistChange histogram_change(const HistRow& row, size_t side, const std::vector<std::string>& conflicts,
                            const Report& report) {
    HistChange hc;
    const auto& base = row.run_counts[0];
    const auto& next = row.run_counts[side];
    hc.runs_base = base.size();
    hc.runs = next.size();
    if (!conflicts.empty()) {
        hc.note = conflicts[0];
        return hc;
    }
    if (base.empty() || next.empty()) {
        hc.note = "missing";
        return hc;
    }
    if (auto events = stats::compare_histograms(row.counts[0], row.counts[side]))
        hc.events = events.value();
    auto t = stats::histogram_permutation(base, next);
    if (!t) {
        hc.note = t.error().message();
        return hc;
    }
    hc.test = t.value();
    const double alpha = 1 - report.options.confidence;
    hc.min_p = smallest_histogram_p(base.size(), next.size());
    hc.unqualified = !report.no_verdict.empty();
    if (hc.min_p >= alpha && !hc.unqualified) {
        hc.unqualified = true;
        hc.note = std::to_string(base.size()) + " and " + std::to_string(next.size()) +
                  " boots give p >= " + format_number(hc.min_p, "%.3g") + ": too few to test at " +
                  format_number(report.options.confidence * 100, "%g") + " % (" +
                  std::to_string(histogram_boots_needed(alpha)) + " boots a side can)";
    }
    hc.significant = !hc.unqualified && t.value().p < alpha && t.value().ks_d * 100 >= report.options.min_effect_pct;
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
        std::vector<std::vector<double>> runs;
        for (const auto& h : e.histograms) {
            if (h.id != meta.id)
                continue;
            if (h.shape_conflict || (shape && *shape != h.shape))
                conflicts.push_back("the histograms' buckets differ");
            shape = h.shape;
            // Over the union's labels: the side's own order may lack some of them.
            auto in_row = [&](const std::vector<double>& own) {
                std::vector<double> out(row.labels.size(), 0);
                for (size_t i = 0; i < h.labels.size() && i < own.size(); i++) {
                    auto at = std::find(row.labels.begin(), row.labels.end(), h.labels[i]);
                    out[size_t(at - row.labels.begin())] = own[i];
                }
                return out;
            };
            counts = in_row(h.counts);
            for (const auto& r : h.run_counts)
                runs.push_back(in_row(r));
        }
        row.counts.push_back(std::move(counts));
        row.run_counts.push_back(std::move(runs));
    }
    for (size_t i = 1; i < row.counts.size(); i++)
        row.changes.push_back(histogram_change(row, i, conflicts, report));
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

// The host CPU sets to permute within: when the runs were pinned to several (ab -j N on the
// wall clock places each side's boots on every slot alike) and every side ran on each. CPUs of
// one host can differ in speed for hours (one of this project's cloud machines ran 40 %
// slower on CPU 0); left unstratified, that difference widens the spread a change is judged
// against. Sides that ran on different CPUs altogether carry it in their change: a warning.
void choose_strata(Report& report) {
    std::vector<std::set<std::string>> used;
    std::set<std::string> all;
    for (const auto& side : report.sides) {
        used.emplace_back(side.host_cpus.begin(), side.host_cpus.end());
        all.insert(side.host_cpus.begin(), side.host_cpus.end());
    }
    if (all.size() < 2 || report.clock == "icount") // icount's figures do not depend on the CPU
        return;
    if (std::all_of(used.begin(), used.end(), [&](const auto& cpus) { return cpus == all; })) {
        if (permutes(report.options.method))
            report.strata.assign(all.begin(), all.end());
        return;
    }
    std::string where;
    for (size_t i = 0; i < used.size(); i++)
        where += (i ? ", " : "") + report.sides[i].label + " on " + host_cpu_words({used[i].begin(), used[i].end()});
    report.warnings.push_back("the sides ran on different host CPUs (" + where +
                              "): a host's CPUs can differ in speed, and that difference is part of the change");
}

} // namespace

std::string host_cpu_words(const std::vector<std::string>& sets) {
    std::string words;
    for (size_t i = 0; i < sets.size(); i++)
        words += (i == 0 ? "" : i + 1 == sets.size() ? " and " : ", ") +
                 (sets[i].empty() ? "not recorded" : "CPU " + sets[i]);
    return words;
}

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
    if (report.options.method == Method::paired)
        IB_TRY(check_pairs(sides, options.unit));

    std::vector<Extracted> found;
    for (const auto& side : sides) {
        report.sides.push_back(side_info(side));
        found.push_back(extract(side.runs));
    }
    choose_samples(sides, found, report);
    choose_strata(report);
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
