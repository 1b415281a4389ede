// compare's decision on one metric: the change of a side against the base side, judged by the
// chosen method (host/compare/stats.h), with what would decide it when it is undecided.
#include "host/compare/compare.h"

#include "common/text.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace initbench {

namespace {

std::string pct_words(double pct) { return format_number(pct, "%g") + " %"; }

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

// The change's interval in percent of the base (Change::ci_lo_pct): every format prints it.
void add_interval(Change& c, std::span<const double> base, std::span<const double> next, double base_mean,
                  const CompareOptions& options) {
    if (base.size() < 2 || next.size() < 2)
        return;
    if (options.method == Method::paired) {
        if (auto w = stats::paired_log_ratio(base, next, options.confidence)) {
            c.ci_lo_pct = std::expm1(w.value().ci_lo) * 100;
            c.ci_hi_pct = std::expm1(w.value().ci_hi) * 100;
        }
        return;
    }
    if (auto w = stats::welch(base, next, options.confidence); w && base_mean != 0) {
        c.ci_lo_pct = w.value().ci_lo / std::fabs(base_mean) * 100;
        c.ci_hi_pct = w.value().ci_hi / std::fabs(base_mean) * 100;
    }
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
    add_interval(c, base, next, base_mean, options);
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

} // namespace initbench
