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

// The samples' strata as the permutation test takes them: none (one stratum) unless both
// sides have one a sample.
struct Strata {
    std::span<const size_t> base, next;
    bool given() const { return !base.empty() && !next.empty(); }
};

// What does not depend on the method: the equivalence test against +-min-effect, the smallest
// change these samples detect, and how many samples a side would likely decide. With strata,
// from the spread within each (Welch's stratified test), where every stratum has 2 a side.
void add_equivalence_and_power(Change& c, std::span<const double> base, std::span<const double> next,
                               const Strata& strata, const CompareOptions& options) {
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
    const double level = alpha < 0.5 ? 1 - 2 * alpha : options.confidence; // TOST's interval
    const bool paired = options.method == Method::paired;
    // Paired: differences of log ratios, against the margin ln(1 + min-effect), the nearer
    // of its two bounds (ln(1 - m) is farther): SAME there is within +-min-effect.
    const double scale = paired ? 0.01 : std::fabs(base_amean) / 100; // one percent of the base
    const double margin = paired ? std::log1p(options.min_effect_pct / 100) : options.min_effect_pct * scale;
    auto to_pct = [&](double diff) { return paired ? std::expm1(diff) * 100 : diff / scale; };
    auto w = paired ? stats::paired_log_ratio(base, next, level)
             : strata.given() ? stats::welch(base, next, strata.base, strata.next, level)
                              : stats::welch(base, next, level);
    if (!w && strata.given() && !paired) // a stratum with one sample a side: the spread over all
        w = stats::welch(base, next, level);
    if (!w)
        return;
    if (alpha < 0.5)
        c.equivalence_p = stats::tost(w.value(), margin).p;
    // The spread a side of this size would show alone: its share of the difference's se^2
    // (paired: all of it is the ratios', var_b).
    const double sd_a = std::sqrt(w.value().var_a * double(base.size()));
    const double sd_b = std::sqrt(w.value().var_b * double(next.size()));
    if (auto d = stats::detectable_difference(sd_a, base.size(), sd_b, next.size(), alpha))
        c.detectable_pct = to_pct(d.value());
    if (auto n = stats::samples_to_detect(sd_a, sd_b, margin, alpha)) {
        c.samples_needed = std::max({*n, base.size(), next.size()});
        if (permutes(options.method)) // no fewer than can reach alpha at all
            c.samples_needed = std::max(*c.samples_needed, stats::permutation_min_samples(alpha));
    }
}

// The permutation test's p (stratified where strata are given; c.strata says over how many),
// or, beyond the sizes it is run at, Welch's test of the same difference: within the same
// host CPU sets, so that their gap stays out of the spread at any size.
void permutation_p(Change& c, std::span<const double> base, std::span<const double> next,
                   const Strata& strata, double confidence) {
    auto t = strata.given() ? stats::permutation_test(base, next, strata.base, strata.next)
                            : stats::permutation_test(base, next);
    if (t) {
        c.p = t.value().p;
        c.strata = t.value().strata;
        return;
    }
    if (strata.given())
        if (auto w = stats::welch(base, next, strata.base, strata.next, confidence)) {
            c.p = w.value().p;
            c.strata = std::set<size_t>(strata.base.begin(), strata.base.end()).size();
            return;
        }
    if (auto w = stats::welch(base, next, confidence))
        c.p = w.value().p;
}

// The smallest p the (stratified) permutation test can give at these sizes.
double permutation_floor_p(size_t n_base, size_t n_next, const Strata& strata) {
    if (!strata.given())
        return stats::permutation_min_p(n_base, n_next);
    std::map<size_t, stats::StratumSize> sizes;
    for (size_t s : strata.base)
        sizes[s].a++;
    for (size_t s : strata.next)
        sizes[s].b++;
    std::vector<stats::StratumSize> list;
    for (const auto& [s, size] : sizes)
        list.push_back(size);
    return stats::permutation_min_p(list);
}

// Why the permutation test could not find a change at these sizes, whatever the samples.
std::string permutation_floor(size_t n_base, size_t n_next, const Strata& strata, double alpha) {
    return "the permutation test's smallest p with " + std::to_string(n_base) + " and " +
           std::to_string(n_next) + " samples" + (strata.given() ? " (permuted within host CPUs)" : "") +
           " is " + format_number(permutation_floor_p(n_base, n_next, strata), "%.3g") + ", not below " +
           format_number(alpha, "%.3g") + ": it needs " + std::to_string(stats::permutation_min_samples(alpha)) +
           " a side" + (strata.given() ? " (more where they are split over host CPUs)" : "") + " to show a change";
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
                    double next_mean, Better better, const CompareOptions& options,
                    std::span<const size_t> base_strata, std::span<const size_t> next_strata) {
    Change c;
    c.pct = stats::percent_change(base_mean, next_mean);
    const bool permutation = permutes(options.method);
    const Strata strata{base_strata, next_strata};
    std::string paired_refused;
    if (permutation) {
        permutation_p(c, base, next, strata, options.confidence);
    } else if (options.method == Method::paired) {
        // The change is the pairs' geometric mean ratio, the figure the test is of.
        if (auto w = stats::paired_log_ratio(base, next, options.confidence)) {
            c.p = w.value().p;
            c.pct = std::expm1(w.value().diff) * 100;
        } else {
            paired_refused = w.error().message();
        }
    } else if (auto w = stats::welch(base, next, options.confidence)) {
        c.p = w.value().p;
    }
    const bool moved = c.pct ? std::fabs(*c.pct) >= options.min_effect_pct : base_mean != next_mean;
    add_equivalence_and_power(c, base, next, strata, options);
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
    case Method::paired:
        if (!c.p)
            c.note = paired_refused;
        else
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
                 permutation_floor_p(base.size(), next.size(), strata) >= 1 - options.confidence)
            c.note = permutation_floor(base.size(), next.size(), strata, 1 - options.confidence);
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
