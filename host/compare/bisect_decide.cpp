// bisect-step's decision: one metric's samples against a baseline's or a threshold.
#include "host/compare/bisect_decide.h"

#include "common/text.h"
#include "host/compare/compare.h"
#include "host/compare/compare_render.h"
#include "host/compare/signed_rank.h"
#include "host/compare/stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace initbench {
namespace {

std::string pct_text(double x) { return format_number(x, "%+.2f%%"); }

std::string num_text(double x) { return format_number(x, "%.6g"); }

// A good step whose change was nonetheless shown (its interval [lo, hi], in percent, leaves
// out 0 on the bad side): said on its line, so that a user who set the limit too wide sees
// the change the bisection walked past.
std::string measured_note(double lo, double hi, double change, double bad_pct) {
    const bool shown = bad_pct < 0 ? hi < 0 : lo > 0;
    if (!shown)
        return "";
    return "; note: a change of " + pct_text(change) + " was measured (interval [" + pct_text(lo) +
           ", " + pct_text(hi) + "]), inside the limit " + pct_text(bad_pct) +
           ": good by this rule, bad by a limit below it";
}

// Where an interval [lo, hi] lies against a limit, `bad_sign` telling which side is bad.
StepDecision place(double lo, double hi, double limit, int bad_sign, const std::string& figures,
                   const std::string& rule) {
    const bool bad = bad_sign < 0 ? hi <= limit : lo >= limit;
    const bool good = bad_sign < 0 ? lo > limit : hi < limit;
    if (bad)
        return {kBisectBad, figures + "; " + rule + ": bad"};
    if (good)
        return {kBisectGood, figures + "; " + rule + ": good"};
    return {kBisectSkip, figures + "; " + rule +
                             ": the interval straddles the limit, too noisy "
                             "to decide (skip; more boots decide)"};
}

// Boots booted in pairs: the paired test of the pairs' log ratios at their 20 %-trimmed mean
// (Yuen's), one-sided against ln(1 + limit), in each direction. Pairing takes a drifting host
// out of the spread; trimming takes out the single boot that a stalled host makes a third to
// a half slower, about one pair in six on a busy TCG host, which widens Welch's interval past
// any limit. Good is the paired test alone: it replaces SAME and the unpaired one-sided test
// (two tests at one level would err up to twice as often). Bad needs the paired test beyond
// the limit and a test that assumes no shape to agree: compare's verdict (DIFFERENT, the two
// sides' permutation test) or the pairs' signed ranks beyond the limit. Each guards against
// what fools the other (a burst of host load over a step's boots; one degree of freedom),
// and the paired test at the look's level bounds the whole. The signed ranks decide where the
// host's speed moved during the step so far that the two sides spread over each other (a
// good kernel at 920 forks/s, then 190–340 beside a test suite), from 8 pairs (2^-8). From
// 3 pairs: at 2, one degree of freedom takes the agreement of two neighbouring boots
// (B S S B) that one host stall slowed alike for precision.
StepDecision decide_by_pairs(std::span<const double> base, std::span<const double> step,
                             const Change& c, double bad_pct, double confidence, bool deterministic,
                             const std::string& figures) {
    const std::string beyond = bad_pct < 0 ? "below" : "above",
                      within = bad_pct < 0 ? "above" : "below";
    const std::string rule = "bad when DIFFERENT by " + std::string(bad_pct < 0 ? "<= " : ">= ") +
                             pct_text(bad_pct) +
                             " or by the signed ranks, and the paired test puts it " + beyond +
                             ", good when the paired test puts it " + within + ", at " +
                             format_number(confidence * 100, "%.4g") + " %";
    const bool different = c.verdict == Decision::different && c.kind == ChangeKind::worse;
    if (step.size() < 3 && !deterministic)
        return {kBisectSkip, figures + "; " + rule +
                                 ": undecided (skip; more boots decide): the "
                                 "paired test needs 3 pairs on the wall clock"};
    auto w = stats::paired_log_ratio(base, step, confidence, kPairedTrim);
    if (!w)
        return {kBisectSkip, figures + "; " + rule + ": undecided (skip): " + w.error().message()};
    const double bound = std::log1p(bad_pct / 100);
    const double p_good = stats::one_sided_p(w.value(), bound, bad_pct < 0);
    const double p_bad = stats::one_sided_p(w.value(), bound, bad_pct > 0);
    const double alpha = 1 - confidence;
    auto paired = [&](double p) {
        return "the paired test, middle " + format_number(w.value().df + 1, "%g") + " of " +
               std::to_string(step.size()) +
               " pairs: " + pct_text(std::expm1(w.value().diff) * 100) +
               ", p = " + format_number(p, "%.3g");
    };
    if (different && p_bad < alpha)
        return {kBisectBad, figures + "; " + rule + ": DIFFERENT, and " + beyond + " " +
                                pct_text(bad_pct) + " (" + paired(p_bad) + "), bad"};
    std::vector<double> ratios;
    for (size_t i = 0; i < base.size(); i++)
        ratios.push_back(std::log(step[i] / base[i])); // > 0, or paired_log_ratio refused
    const auto ranks = stats::signed_rank_p(ratios, bound, bad_pct > 0);
    const std::string ranks_p = ranks ? format_number(ranks.value(), "%.3g") : "none";
    if (p_bad < alpha && ranks && ranks.value() < alpha)
        return {kBisectBad, figures + "; " + rule + ": " + beyond + " " + pct_text(bad_pct) +
                                " by the pairs' signed ranks (p = " + ranks_p + ") and " +
                                paired(p_bad) + ", bad"};
    if (p_good < alpha)
        return {kBisectGood, figures + "; " + rule + ": not " + beyond + " " + pct_text(bad_pct) +
                                 " (" + paired(p_good) + "), good"};
    if (p_bad < alpha)
        return {kBisectSkip,
                figures + "; " + rule + ": undecided (skip; more boots decide): " + beyond + " " +
                    pct_text(bad_pct) + " by " + paired(p_bad) +
                    ", but neither DIFFERENT nor by the pairs' signed ranks (p = " + ranks_p +
                    ", not below " + format_number(alpha, "%.3g") + "); the two sides: " +
                    compare_render::undecided_text(c, base.size(), step.size())};
    if (different)
        return {kBisectSkip, figures + "; " + rule +
                                 ": undecided (skip; more boots decide): DIFFERENT, but " +
                                 paired(p_bad) + ", not below " + format_number(alpha, "%.3g")};
    return {kBisectSkip,
            figures + "; " + rule + ": undecided (skip; more boots decide): " + paired(p_good) +
                ", not below " + format_number(alpha, "%.3g") + "; for bad, the two sides: " +
                compare_render::undecided_text(c, base.size(), step.size())};
}

// Two samples or more a side: compare's verdict with --min-effect at the limit. DIFFERENT the
// bad way is bad; SAME, or DIFFERENT the good way, is good. A step's question is one-sided
// (worse than the limit or not), so an UNKNOWN is still good when the equivalence test's half
// on the bad side alone shows the change beyond the limit: the test SAME needs both halves
// of, at the same level. Otherwise a skip.
StepDecision decide_by_verdict(std::span<const double> base, std::span<const double> step,
                               double base_mean, double step_mean, double bad_pct,
                               double confidence, bool deterministic, bool paired) {
    CompareOptions options;
    options.method = method_for_clock(Method::auto_, deterministic ? "icount" : "wall");
    options.confidence = confidence;
    options.min_effect_pct = std::fabs(bad_pct);
    const Better better = bad_pct < 0 ? Better::higher : Better::lower;
    const Change c = judge_change(base, step, base_mean, step_mean, better, options);
    const double change = (step_mean - base_mean) / std::fabs(base_mean) * 100;
    std::string figures = "mean " + num_text(step_mean) + " (n=" + std::to_string(step.size()) +
                          ") vs baseline " + num_text(base_mean) + " (n=" + std::to_string(base.size()) +
                          "): " + pct_text(change);
    auto w = stats::welch(base, step, confidence);
    std::string note; // for a good step
    if (w) {
        const double lo = w.value().ci_lo / std::fabs(base_mean) * 100,
                     hi = w.value().ci_hi / std::fabs(base_mean) * 100;
        figures += ", interval [" + pct_text(lo) + ", " + pct_text(hi) + "]";
        note = measured_note(lo, hi, change, bad_pct);
    }
    if (paired)
        return decide_by_pairs(base, step, c, bad_pct, confidence, deterministic, figures);
    const std::string rule = "bad when DIFFERENT by " + std::string(bad_pct < 0 ? "<= " : ">= ") +
                             pct_text(bad_pct) + " at " + format_number(confidence * 100, "%.4g") + " %";
    switch (c.verdict) {
    case Decision::different:
        if (c.kind == ChangeKind::worse)
            return {kBisectBad, figures + "; " + rule + ": DIFFERENT, bad"};
        return {kBisectGood, figures + "; " + rule + ": DIFFERENT the good way, good"};
    case Decision::same:
        return {kBisectGood, figures + "; " + rule + ": SAME (within +-" +
                                 format_number(std::fabs(bad_pct), "%g") + " %), good" + note};
    case Decision::unknown:
        break;
    }
    if (w) {
        const double limit = bad_pct / 100 * std::fabs(base_mean);
        const double p = stats::one_sided_p(w.value(), limit, bad_pct < 0);
        if (p < 1 - confidence)
            return {kBisectGood, figures + "; " + rule + ": not worse than " + pct_text(bad_pct) +
                                     " (the one-sided test, p = " + format_number(p, "%.3g") +
                                     "; SAME's other half undecided), good" + note};
    }
    return {kBisectSkip, figures + "; " + rule + ": undecided (skip; more boots decide): " +
                             compare_render::undecided_text(c, base.size(), step.size())};
}

} // namespace

StepDecision decide_against_baseline(std::span<const double> base, std::span<const double> step,
                                     double bad_pct, double confidence, bool deterministic,
                                     bool paired) {
    auto b = stats::mean_interval(base, confidence);
    auto s = stats::mean_interval(step, confidence);
    if (!b || !s)
        return {kBisectSkip, "no usable samples: " + (!b ? b.error() : s.error()).message()};
    const double base_mean = b.value().mean;
    if (base_mean == 0)
        return {kBisectAbort, "the baseline's mean is 0: a percent change means nothing"};
    double lo = 0, hi = 0;
    if (base.size() >= 2 && step.size() >= 2)
        return decide_by_verdict(base, step, b.value().mean, s.value().mean, bad_pct, confidence,
                                 deterministic, paired);
    if (base.size() == 1 && step.size() == 1) {
        return {kBisectSkip, "one boot a side: no spread to judge the change by (skip; "
                             "a baseline of two boots or more, or --max-boots 2, decides)"};
    } else if (deterministic) {
        // One boot against several: judged by the spread of the several (a prediction
        // interval), never by a zero-width interval. On the wall clock a boot's figure
        // scatters too far for one to stand for a kernel: there, two boots a side decide.
        const bool one_step = step.size() == 1;
        auto pi = stats::prediction_interval(one_step ? base : step, confidence);
        if (!pi)
            return {kBisectSkip, pi.error().message()};
        const double half = pi.value().hi - pi.value().mean;
        const double diff = s.value().mean - base_mean;
        lo = (diff - half) / std::fabs(base_mean) * 100;
        hi = (diff + half) / std::fabs(base_mean) * 100;
    } else {
        return {kBisectSkip, "one boot on a side cannot be judged on the wall clock (skip; "
                             "--max-boots 2 or more decides)"};
    }
    const double change = (s.value().mean - base_mean) / std::fabs(base_mean) * 100;
    std::string figures =
        "mean " + num_text(s.value().mean) + " (n=" + std::to_string(step.size()) +
        ") vs baseline " + num_text(base_mean) + " (n=" + std::to_string(base.size()) +
        "): " + pct_text(change) + ", interval [" + pct_text(lo) + ", " + pct_text(hi) + "]";
    std::string rule = std::string("bad when ") + (bad_pct < 0 ? "<= " : ">= ") + pct_text(bad_pct);
    StepDecision d = place(lo, hi, bad_pct, bad_pct < 0 ? -1 : 1, figures, rule);
    if (d.exit_code == kBisectGood)
        d.why += measured_note(lo, hi, change, bad_pct);
    return d;
}

StepDecision judge_runs(const std::vector<RunFile>& baseline, const std::vector<RunFile>& step,
                        const std::string& id, double bad_pct, double confidence,
                        bool deterministic, bool paired) {
    auto final = [](int code, std::string why) { return StepDecision{code, std::move(why), true}; };
    CompareOptions options;
    options.confidence = confidence;
    // The boot is the sample, on every clock: the rounds of one boot share its host's
    // conditions and its round 0, which always runs faster, so they understate the spread
    // between boots that a commit is judged against.
    options.unit = SampleUnit::run;
    auto report = compare_sides({Side{"baseline", baseline}, Side{"step", step}}, options);
    if (!report)
        return final(kBisectAbort, "abort: " + report.error().message());
    // The samples compare tested: per-run means when both sides have two runs or more.
    const auto& rows = report.value().metrics;
    auto row =
        std::find_if(rows.begin(), rows.end(), [&](const MetricRow& r) { return r.id == id; });
    if (row == rows.end() || !row->sides[0].summary) {
        const std::string why = row == rows.end() ? "missing" : row->sides[0].error;
        if (paired)
            return final(kBisectSkip,
                         "skip: a boot of the baseline kernel beside this step has no usable " +
                             id + " (" + why + "): one more boot would not mend it");
        return final(kBisectAbort, "abort: the baseline has no usable " + id + " (" + why + ")");
    }
    if (!row->sides[1].summary)
        return final(kBisectSkip, "skip: " + id + ": " + row->sides[1].error);
    // Pairs from two of each; paired_log_ratio refuses counts that differ (a run without the
    // metric), which is a skip, never a judgement as two sides.
    return decide_against_baseline(row->sides[0].samples, row->sides[1].samples, bad_pct,
                                   confidence, deterministic, paired && step.size() >= 2);
}

StepDecision decide_against_threshold(std::span<const double> step, double threshold, int bad_sign,
                                      double confidence, bool deterministic) {
    auto s = stats::mean_interval(step, confidence);
    if (!s)
        return {kBisectSkip, "no usable samples: " + s.error().message()};
    if (step.size() < 2 && !deterministic)
        return {kBisectSkip, "one sample cannot be judged on the wall clock: use more rounds "
                             "or boots, or --clock icount"};
    const auto& m = s.value();
    std::string figures = "mean " + num_text(m.mean) + " (n=" + std::to_string(m.n) +
                          "), interval [" + num_text(m.lo) + ", " + num_text(m.hi) + "]";
    std::string rule =
        std::string("bad when ") + (bad_sign < 0 ? "below " : "above ") + num_text(threshold);
    return place(m.lo, m.hi, threshold, bad_sign, figures, rule);
}

} // namespace initbench
