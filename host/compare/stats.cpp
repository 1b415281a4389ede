#include "host/compare/stats.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <vector>

namespace initbench::stats {
Status check_finite(std::span<const double> xs) {
    for (double x : xs)
        if (!std::isfinite(x))
            return Error{"sample is " + std::string(std::isnan(x) ? "NaN" : "infinite")};
    return ok();
}

namespace {

// Two-sided critical value of Student's t for `df` degrees of freedom.
double t_critical(double confidence, double df) {
    boost::math::students_t dist(df);
    return boost::math::quantile(boost::math::complement(dist, (1 - confidence) / 2));
}

Status check_confidence(double confidence) {
    if (!(confidence > 0 && confidence < 1))
        return Error{"confidence must be between 0 and 1"};
    return ok();
}

} // namespace

double choose(size_t n, size_t k) {
    double c = 1;
    for (size_t i = 1; i <= k; i++)
        c = c * double(n - k + i) / double(i);
    return std::round(c);
}

Result<Summary> summarize(std::span<const double> xs, Agg agg) {
    if (xs.empty())
        return Error{"no samples"};
    IB_TRY(check_finite(xs));
    Summary s;
    s.n = xs.size();
    s.amean = arithmetic_mean(xs);
    s.stddev = sample_stddev(xs, s.amean);
    auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    s.min = *lo;
    s.max = *hi;
    if (s.amean != 0)
        s.cov = s.stddev / std::fabs(s.amean);
    const auto mean = aggregate(xs, agg);
    if (!mean)
        return Error{std::string(agg_label(agg)) + " of a value <= 0"};
    s.mean = *mean;
    return s;
}

std::optional<double> percent_change(double a, double b) {
    if (a == 0)
        return std::nullopt;
    return (b - a) / std::fabs(a) * 100;
}

namespace {

// One part of a difference's squared standard error (a side's, or a stratum's side's) and
// its degrees of freedom.
struct SePart {
    double var = 0, df = 0;
};

// Welch's figures from the difference and its parts: df Welch-Satterthwaite's, where a part
// with no variance adds nothing. No variance at all: the difference is the answer.
Welch welch_of(double diff, std::span<const SePart> parts, double confidence) {
    Welch w;
    w.diff = diff;
    double se2 = 0, denom = 0, all_df = 0;
    for (const auto& part : parts) {
        se2 += part.var;
        all_df += part.df;
        if (part.var > 0)
            denom += part.var * part.var / part.df;
    }
    if (se2 == 0) {
        w.df = all_df;
        w.p = w.diff == 0 ? 1 : 0;
        w.t = w.diff == 0 ? 0 : std::copysign(INFINITY, w.diff);
        w.ci_lo = w.ci_hi = w.diff;
        return w;
    }
    w.se = std::sqrt(se2);
    w.t = w.diff / w.se;
    w.df = se2 * se2 / denom;
    boost::math::students_t dist(w.df);
    w.p = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(w.t))));
    const double half = t_critical(confidence, w.df) * w.se;
    w.ci_lo = w.diff - half;
    w.ci_hi = w.diff + half;
    return w;
}

} // namespace

Result<Welch> welch(std::span<const double> a, std::span<const double> b, double confidence) {
    IB_TRY(check_confidence(confidence));
    if (a.size() < 2 || b.size() < 2)
        return Error{"Welch's t-test needs at least 2 samples a side"};
    IB_TRY(check_finite(a));
    IB_TRY(check_finite(b));
    const double ma = arithmetic_mean(a), mb = arithmetic_mean(b);
    const SePart parts[] = {{sample_variance(a, ma) / double(a.size()), double(a.size() - 1)},
                            {sample_variance(b, mb) / double(b.size()), double(b.size() - 1)}};
    Welch w = welch_of(mb - ma, parts, confidence);
    w.var_a = parts[0].var;
    w.var_b = parts[1].var;
    return w;
}

Result<Welch> paired_log_ratio(std::span<const double> a, std::span<const double> b,
                               double confidence, double trim) {
    IB_TRY(check_confidence(confidence));
    if (a.size() != b.size())
        return Error{"the paired test needs as many samples a side (has " + std::to_string(a.size()) +
                     " and " + std::to_string(b.size()) + ")"};
    if (a.size() < 2)
        return Error{"the paired test needs at least 2 pairs"};
    if (!(trim >= 0 && trim < 0.5))
        return Error{"the paired test trims a fraction from 0 to below 0.5 of each end"};
    IB_TRY(check_finite(a));
    IB_TRY(check_finite(b));
    std::vector<double> ratios;
    for (size_t i = 0; i < a.size(); i++) {
        if (!(a[i] > 0 && b[i] > 0))
            return Error{"the paired test takes log ratios: every sample must be > 0"};
        ratios.push_back(std::log(b[i] / a[i]));
    }
    const size_t n = ratios.size(), g = size_t(std::floor(trim * double(n))), h = n - 2 * g;
    if (h < 2)
        return Error{"the paired test keeps fewer than 2 pairs after trimming"};
    std::sort(ratios.begin(), ratios.end());
    const double mean = arithmetic_mean(std::span(ratios).subspan(g, h));
    for (size_t i = 0; i < g; i++) { // winsorize
        ratios[i] = ratios[g];
        ratios[n - 1 - i] = ratios[n - 1 - g];
    }
    const double var = sample_variance(ratios, arithmetic_mean(ratios)) * double(n - 1) /
                       (double(h) * double(h - 1));
    const SePart part{var, double(h - 1)};
    Welch w = welch_of(mean, std::span(&part, 1), confidence);
    w.var_b = part.var;
    return w;
}

Result<MeanInterval> mean_interval(std::span<const double> xs, double confidence) {
    IB_TRY(check_confidence(confidence));
    if (xs.empty())
        return Error{"no samples"};
    IB_TRY(check_finite(xs));
    MeanInterval m;
    m.n = xs.size();
    m.mean = m.lo = m.hi = arithmetic_mean(xs);
    if (xs.size() >= 2) {
        double half = t_critical(confidence, double(xs.size() - 1)) *
                      std::sqrt(sample_variance(xs, m.mean) / double(xs.size()));
        m.lo -= half;
        m.hi += half;
    }
    return m;
}

Result<MeanInterval> prediction_interval(std::span<const double> xs, double confidence) {
    IB_TRY(check_confidence(confidence));
    if (xs.size() < 2)
        return Error{"a prediction interval needs two samples or more"};
    IB_TRY(check_finite(xs));
    MeanInterval m;
    m.n = xs.size();
    m.mean = m.lo = m.hi = arithmetic_mean(xs);
    const double n = double(xs.size());
    const double half = t_critical(confidence, n - 1) * std::sqrt(sample_variance(xs, m.mean) * (1 + 1 / n));
    m.lo -= half;
    m.hi += half;
    return m;
}

double permutation_min_p(size_t n_a, size_t n_b) {
    const StratumSize one[] = {{n_a, n_b}};
    return permutation_min_p(one);
}

double permutation_min_p(std::span<const StratumSize> strata) {
    double splits = 1;
    bool permuted = false, mirrored = true; // swapping every label is a split when each stratum is even
    for (const auto& s : strata) {
        if (s.a == 0 || s.b == 0)
            continue; // the test leaves it out
        splits *= choose(s.a + s.b, s.a);
        permuted = true;
        mirrored = mirrored && s.a == s.b;
    }
    return permuted ? std::min(1.0, (mirrored ? 2 : 1) / splits) : 1;
}

size_t permutation_min_samples(double alpha, size_t cap) {
    size_t n = 1;
    while (n < cap && permutation_min_p(n, n) >= alpha)
        n++;
    return n;
}

namespace {

// One stratum's samples, pooled: the first `na` are side a's in the observed split.
struct Stratum {
    std::vector<double> pooled;
    size_t na = 0;
    double weight = 0, total = 0;
    // mean(b) - mean(a) of this stratum for a split whose side a sums to sum_a
    double difference(double sum_a) const {
        return (total - sum_a) / double(pooled.size() - na) - sum_a / double(na);
    }
};

// The strata that hold both sides, each weighted by na nb / (na + nb): the weights of the
// difference of means when there is one stratum, and the ones that give a stratified
// difference the least variance when the noise is alike in each.
Result<std::vector<Stratum>> both_sided_strata(std::span<const double> a, std::span<const double> b,
                                              std::span<const size_t> strata_a,
                                              std::span<const size_t> strata_b) {
    if (strata_a.size() != a.size() || strata_b.size() != b.size())
        return Error{"a stratum for every sample"};
    std::map<size_t, Stratum> by;
    for (size_t i = 0; i < a.size(); i++)
        by[strata_a[i]].pooled.push_back(a[i]);
    for (auto& [key, s] : by)
        s.na = s.pooled.size();
    for (size_t i = 0; i < b.size(); i++)
        by[strata_b[i]].pooled.push_back(b[i]);
    std::vector<Stratum> out;
    double weights = 0;
    for (auto& [key, s] : by) {
        if (s.na == 0 || s.na == s.pooled.size())
            continue;
        const double nb = double(s.pooled.size() - s.na);
        s.weight = double(s.na) * nb / double(s.pooled.size());
        s.total = std::accumulate(s.pooled.begin(), s.pooled.end(), 0.0);
        weights += s.weight;
        out.push_back(std::move(s));
    }
    if (out.empty())
        return Error{"no stratum holds samples of both sides"};
    for (auto& s : out)
        s.weight /= weights;
    return out;
}

// The stratified difference of a split, given each stratum's sum on side a.
double weighted_difference(const std::vector<Stratum>& strata, std::span<const double> sums_a) {
    double d = 0;
    for (size_t s = 0; s < strata.size(); s++)
        d += strata[s].weight * strata[s].difference(sums_a[s]);
    return d;
}

} // namespace

Result<Permutation> permutation_test(std::span<const double> a, std::span<const double> b) {
    const std::vector<size_t> zeros_a(a.size(), 0), zeros_b(b.size(), 0);
    return permutation_test(a, b, zeros_a, zeros_b);
}

Result<Permutation> permutation_test(std::span<const double> a, std::span<const double> b,
                                     std::span<const size_t> strata_a, std::span<const size_t> strata_b) {
    if (a.empty() || b.empty())
        return Error{"the permutation test needs a sample a side"};
    if (a.size() > kLargeSample && b.size() > kLargeSample)
        return Error{"more than " + std::to_string(kLargeSample) + " samples a side: Welch's t-test"};
    IB_TRY(check_finite(a));
    IB_TRY(check_finite(b));
    auto grouped = both_sided_strata(a, b, strata_a, strata_b);
    if (!grouped)
        return grouped.error();
    const std::vector<Stratum>& strata = grouped.value();
    std::vector<double> sums(strata.size());
    for (size_t s = 0; s < strata.size(); s++)
        sums[s] = std::accumulate(strata[s].pooled.begin(), strata[s].pooled.begin() + long(strata[s].na), 0.0);
    Permutation out;
    out.diff = weighted_difference(strata, sums);
    out.strata = strata.size();
    const double observed = std::fabs(out.diff);
    // Sums of the same values in another order differ in their last bits: such a split ties.
    const double at_least = observed - 1e-9 * std::max(1.0, observed);
    auto counts = [&] { return std::fabs(weighted_difference(strata, sums)) >= at_least; };
    double splits = 1;
    for (const auto& s : strata)
        splits *= choose(s.pooled.size(), s.na);
    double hits = 0;
    if (splits <= double(kExactSplits)) {
        // Every split once: an odometer whose digits are the strata's arrangements of na
        // trues (prev_permutation walks them, and wraps to the first one with false).
        std::vector<std::vector<bool>> on_a(strata.size());
        for (size_t s = 0; s < strata.size(); s++) {
            on_a[s].assign(strata[s].pooled.size(), false);
            std::fill(on_a[s].begin(), on_a[s].begin() + long(strata[s].na), true);
        }
        for (bool more = true; more;) {
            for (size_t s = 0; s < strata.size(); s++) {
                sums[s] = 0;
                for (size_t i = 0; i < on_a[s].size(); i++)
                    sums[s] += on_a[s][i] ? strata[s].pooled[i] : 0;
            }
            hits += counts();
            out.splits++;
            more = false;
            for (size_t s = 0; s < strata.size() && !more; s++)
                more = std::prev_permutation(on_a[s].begin(), on_a[s].end());
        }
        out.p = hits / out.splits;
        out.exact = true;
        return out;
    }
    std::mt19937_64 random(0x1b5eed); // fixed: a rerun of compare prints the same p
    std::vector<std::vector<double>> shuffled;
    for (const auto& s : strata)
        shuffled.push_back(s.pooled);
    for (size_t d = 0; d < kDraws; d++) {
        // A partial Fisher-Yates shuffle a stratum: its first na places are a uniform random split.
        for (size_t s = 0; s < strata.size(); s++) {
            auto& xs = shuffled[s];
            for (size_t i = 0; i < strata[s].na; i++)
                std::swap(xs[i], xs[std::uniform_int_distribution<size_t>(i, xs.size() - 1)(random)]);
            sums[s] = std::accumulate(xs.begin(), xs.begin() + long(strata[s].na), 0.0);
        }
        hits += counts();
    }
    out.splits = double(kDraws);
    out.p = (1 + hits) / (1 + double(kDraws));
    return out;
}

Result<Welch> welch(std::span<const double> a, std::span<const double> b, std::span<const size_t> strata_a,
                    std::span<const size_t> strata_b, double confidence) {
    IB_TRY(check_confidence(confidence));
    IB_TRY(check_finite(a));
    IB_TRY(check_finite(b));
    auto grouped = both_sided_strata(a, b, strata_a, strata_b);
    if (!grouped)
        return grouped.error();
    std::vector<SePart> parts;
    Welch sums;
    double diff = 0;
    for (const Stratum& s : grouped.value()) {
        const std::span<const double> sa(s.pooled.data(), s.na), sb(s.pooled.data() + s.na, s.pooled.size() - s.na);
        if (sa.size() < 2 || sb.size() < 2)
            return Error{"Welch's test within strata needs 2 samples a side in each"};
        const double ma = arithmetic_mean(sa), mb = arithmetic_mean(sb), w2 = s.weight * s.weight;
        diff += s.weight * (mb - ma);
        parts.push_back({w2 * sample_variance(sa, ma) / double(sa.size()), double(sa.size() - 1)});
        parts.push_back({w2 * sample_variance(sb, mb) / double(sb.size()), double(sb.size() - 1)});
        sums.var_a += parts[parts.size() - 2].var;
        sums.var_b += parts.back().var;
    }
    Welch w = welch_of(diff, parts, confidence);
    w.var_a = sums.var_a;
    w.var_b = sums.var_b;
    return w;
}

Result<Equivalence> tost(std::span<const double> a, std::span<const double> b, double margin,
                         double alpha) {
    if (!(alpha > 0 && alpha < 0.5))
        return Error{"the equivalence test's level must be between 0 and 0.5"};
    if (!(margin >= 0) || !std::isfinite(margin))
        return Error{"the equivalence margin must be >= 0"};
    auto welched = welch(a, b, 1 - 2 * alpha);
    if (!welched)
        return welched.error();
    return tost(welched.value(), margin);
}

Equivalence tost(const Welch& w, double margin) {
    Equivalence e;
    e.diff = w.diff;
    e.ci_lo = w.ci_lo;
    e.ci_hi = w.ci_hi;
    e.p = std::max(one_sided_p(w, -margin, true), one_sided_p(w, margin, false));
    return e;
}

double one_sided_p(const Welch& w, double bound, bool above) {
    if (w.ci_lo == w.ci_hi) // both sides constant: the difference is known exactly
        return (above ? w.diff > bound : w.diff < bound) ? 0 : 1;
    const double t = (w.diff - bound) / w.se;
    boost::math::students_t dist(w.df);
    return above ? boost::math::cdf(boost::math::complement(dist, t)) : boost::math::cdf(dist, t);
}

Result<double> detectable_difference(double sd_a, size_t n_a, double sd_b, size_t n_b,
                                     double alpha, double power) {
    if (n_a < 2 || n_b < 2)
        return Error{"a detectable change needs 2 samples a side"};
    if (!(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
        return Error{"alpha and power must be between 0 and 1"};
    if (!(sd_a >= 0) || !(sd_b >= 0) || !std::isfinite(sd_a) || !std::isfinite(sd_b))
        return Error{"standard deviations must be finite and >= 0"};
    const double va = sd_a * sd_a / double(n_a), vb = sd_b * sd_b / double(n_b);
    const double se2 = va + vb;
    if (se2 == 0)
        return 0.0; // no noise: any difference shows
    double denom = 0;
    if (va > 0)
        denom += va * va / double(n_a - 1);
    if (vb > 0)
        denom += vb * vb / double(n_b - 1);
    boost::math::students_t dist(se2 * se2 / denom);
    const double t_alpha = boost::math::quantile(boost::math::complement(dist, alpha / 2));
    const double t_power = boost::math::quantile(dist, power);
    return (t_alpha + t_power) * std::sqrt(se2);
}

std::optional<size_t> samples_to_detect(double sd_a, double sd_b, double difference, double alpha,
                                        double power, size_t cap) {
    for (size_t n = 2; n <= cap; n++) {
        auto d = detectable_difference(sd_a, n, sd_b, n, alpha, power);
        if (!d)
            return std::nullopt;
        if (d.value() <= difference)
            return n;
    }
    return std::nullopt;
}

double spent_alpha(double alpha, size_t look, size_t looks, double rho) {
    if (looks == 0)
        return 0;
    const double t = double(std::min(look, looks)) / double(looks);
    return alpha * std::pow(t, rho);
}

double look_alpha(double alpha, size_t look, size_t looks, double rho) {
    if (look == 0)
        return 0;
    return spent_alpha(alpha, look, looks, rho) - spent_alpha(alpha, look - 1, looks, rho);
}

bool lkp_separated(std::span<const double> a, std::span<const double> b, size_t min_n) {
    if (a.size() < min_n || b.size() < min_n)
        return false;
    auto [alo, ahi] = std::minmax_element(a.begin(), a.end());
    auto [blo, bhi] = std::minmax_element(b.begin(), b.end());
    return *ahi < *blo || *bhi < *alo;
}

} // namespace initbench::stats
