// Statistics for comparing kernels: means by a metric's aggregation kind, spread, Welch's
// t-test, the equivalence test, the smallest detectable change, alpha spending for tests
// repeated as samples arrive, LKP's separated-ranges rule, and a test of two histograms
// (homogeneity.cpp; the rest stats.cpp). Pure functions on samples; they refuse NaN,
// infinities and values the aggregation cannot take.
#pragma once

#include "common/result.h" // Result<T>, Error: errors as values (header-only, no PID-1 code)
#include "common/statistics.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace initbench::stats {

struct Summary {
    size_t n = 0;
    double mean = 0;           // by the aggregation kind
    double amean = 0;          // arithmetic, what the tests compare
    double stddev = 0;         // sample standard deviation (n - 1), 0 for one sample
    std::optional<double> cov; // stddev / |amean|, none when amean is 0
    double min = 0, max = 0;
};

// Refuses NaN and infinities: every test's first check.
Status check_finite(std::span<const double> xs);

// Refuses an empty set, NaN and infinities, and values <= 0 for the harmonic and
// geometric means (a rate of 0 has no harmonic mean worth printing).
Result<Summary> summarize(std::span<const double> xs, Agg agg);

// (b - a) / |a| in percent; none when a is 0.
std::optional<double> percent_change(double a, double b);

// Welch's unequal-variance t-test of mean(b) - mean(a), two-sided, with the confidence
// interval of that difference. Needs two samples a side. Zero variance on both sides is
// decided exactly: equal means are p = 1, different means p = 0 (deterministic clocks).
struct Welch {
    double diff = 0; // mean(b) - mean(a)
    double se = 0;   // its standard error
    double t = 0, df = 0, p = 1;
    double ci_lo = 0, ci_hi = 0;
    double var_a = 0, var_b = 0; // each side's share of se^2
};
Result<Welch> welch(std::span<const double> a, std::span<const double> b, double confidence);

// Welch's test of the stratified difference (the one the stratified permutation test below
// takes: each stratum's difference of means, weighted by na nb / (na + nb)): se^2 is the
// strata's, weighted; df Welch-Satterthwaite's over every stratum's two sides. A stratum's
// own level (a host CPU's speed) is then no part of the spread. Needs 2 samples a side in
// every stratum that holds both sides.
Result<Welch> welch(std::span<const double> a, std::span<const double> b, std::span<const size_t> strata_a,
                    std::span<const size_t> strata_b, double confidence);

// The paired test of boots booted one after the other (A B, B A, ...): pair i is a[i] and
// b[i], and the test is Student's one-sample t of their log ratios ln(b[i] / a[i]). A host
// whose speed drifts between pairs moves both boots of a pair alike, so the drift stays out of
// the ratios' spread, where the two sides' own spread (Welch's) takes it in. As a Welch with
// diff the mean log ratio (exp(diff) - 1 is the change), var_a 0 and var_b its se^2, df n - 1,
// so that tost() and detectable_difference(0, n, sd, n, ...) apply as they are. Needs two
// pairs or more and values > 0.
// trim > 0 makes it Yuen's test of the trimmed mean: g = floor(trim n) ratios are cut from
// each end, diff is the mean of the h = n - 2g left, se^2 (n - 1) s_w^2 / (h (h - 1)) with
// s_w^2 the winsorized variance (each cut ratio set to the nearest one kept), df h - 1. One
// wild pair (a boot that a stalled host made a third slower) then moves neither diff nor se.
Result<Welch> paired_log_ratio(std::span<const double> a, std::span<const double> b,
                               double confidence, double trim = 0);

// The mean of one sample with its two-sided confidence interval (Student's t). One value
// gives a zero-width interval: only meaningful where the clock is deterministic.
struct MeanInterval {
    double mean = 0, lo = 0, hi = 0;
    size_t n = 0;
};
Result<MeanInterval> mean_interval(std::span<const double> xs, double confidence);

// Where one more draw from the distribution of xs (two or more) would fall: Student's
// prediction interval, mean +- t(n-1) * s * sqrt(1 + 1/n). What one sample on the other
// side is judged against: the spread is xs's, never assumed to be zero.
Result<MeanInterval> prediction_interval(std::span<const double> xs, double confidence);

// The permutation test of mean(b) - mean(a), two-sided: of the ways to split the pooled
// samples into sides of these sizes, the share whose |difference of means| is at least the
// one observed. It assumes nothing of the samples' distribution, only that under "no change"
// every split was as likely (the boots were interleaved): its false alarms are at most its
// level whatever the tails, where a t-test on a few heavy-tailed samples is not. Every split
// is counted up to kExactSplits of them, else kDraws random ones (a fixed seed: the same
// samples give the same p) with p = (1 + hits) / (1 + draws). Beyond kLargeSample a side it
// is not run: Welch's t (the central limit's answer, which the permutation's approaches).
inline constexpr size_t kExactSplits = 20000;
inline constexpr size_t kDraws = 10000;
inline constexpr size_t kLargeSample = 50;
struct Permutation {
    double diff = 0;   // mean(b) - mean(a); stratified: the strata's, weighted
    double p = 1;
    double splits = 0; // counted (exact) or drawn
    bool exact = false;
    size_t strata = 1; // permuted within each (those that hold both sides)
};
Result<Permutation> permutation_test(std::span<const double> a, std::span<const double> b);

// The same test stratified: strata_a[i] names the stratum of a[i] (a host CPU a boot ran on),
// and labels are permuted only within a stratum. A stratum's own level (one CPU 40 % slower
// than the other) then moves every split alike instead of widening the spread the observed
// difference is judged against. The statistic is the strata's differences of means, each
// weighted by na nb / (na + nb); a stratum that holds one side only is left out.
Result<Permutation> permutation_test(std::span<const double> a, std::span<const double> b,
                                     std::span<const size_t> strata_a, std::span<const size_t> strata_b);

// The smallest p the permutation test can give for sides of these sizes, whatever the values:
// the observed split alone at the extreme (and its mirror, for equal sizes). Below a look's
// level it must be for the test to find anything: 2 a side gives 1/3, 5 a side 1/126.
double permutation_min_p(size_t n_a, size_t n_b);
// Stratified: sides of these sizes in each stratum (3 and 3 on each of 2 CPUs: 2/400).
struct StratumSize {
    size_t a = 0, b = 0;
};
double permutation_min_p(std::span<const StratumSize> strata);

// The fewest samples a side (equal sizes, at most `cap`) at which permutation_min_p < alpha.
size_t permutation_min_samples(double alpha, size_t cap = 1000);

// Two one-sided tests (Schuirmann's TOST, with Welch's standard error): does mean(b) - mean(a)
// lie inside (-margin, +margin)? p is the larger of the two one-sided p-values; equivalence is
// shown at level alpha when p < alpha, which is when the (1 - 2 alpha) interval of the
// difference lies inside the margin. Zero variance on both sides is decided exactly.
struct Equivalence {
    double diff = 0;
    double p = 1;
    double ci_lo = 0, ci_hi = 0; // the (1 - 2 alpha) interval of the difference
};
Result<Equivalence> tost(std::span<const double> a, std::span<const double> b, double margin,
                         double alpha);
// The same on a Welch's test already run at confidence 1 - 2 alpha (stratified, say).
Equivalence tost(const Welch& w, double margin);
// One of TOST's two tests alone (a non-inferiority test): the p of H0 "diff <= bound" when
// `above`, of "diff >= bound" otherwise, so that a small p shows the difference lies beyond
// `bound` on that side. Zero variance on both sides is decided exactly.
double one_sided_p(const Welch& w, double bound, bool above);

// The power that "detectable" promises: 80 %, the usual choice in power analysis.
inline constexpr double kPower = 0.8;

// The smallest true difference of means that Welch's two-sided test at level alpha finds with
// probability `power`, for sides of these standard deviations and sizes:
// (t(1 - alpha/2, df) + t(power, df)) * se, se and df as Welch's. Needs n >= 2 a side.
Result<double> detectable_difference(double sd_a, size_t n_a, double sd_b, size_t n_b,
                                     double alpha, double power = kPower);

// The samples a side (equal sizes, at most `cap`) at which detectable_difference falls to
// `difference` or below; none beyond the cap.
std::optional<size_t> samples_to_detect(double sd_a, double sd_b, double difference, double alpha,
                                        double power = kPower, size_t cap = 1000);

// Alpha spending for a test repeated after each new sample (a group-sequential design):
// after `look` of `looks`, alpha * (look / looks)^rho may have been spent in all (rho 1 is
// close to Pocock's boundaries, 3 to O'Brien-Fleming's: little early, most at the end).
// look_alpha is what one look may use. Testing at these levels keeps the total error <= alpha
// (the union bound), where testing every look at alpha does not.
double spent_alpha(double alpha, size_t look, size_t looks, double rho);
double look_alpha(double alpha, size_t look, size_t looks, double rho);

// LKP's rule (0-day robot): at least `min_n` samples a side and ranges that do not overlap.
bool lkp_separated(std::span<const double> a, std::span<const double> b, size_t min_n = 3);

// Two histograms over the same buckets: Pearson's chi-square test of homogeneity (buckets
// merged left to right until every expected count is >= 5) and the Kolmogorov-Smirnov
// distance of the two empirical distributions.
struct Homogeneity {
    double chi2 = 0;
    unsigned df = 0;
    double p = 1;
    double ks_d = 0; // max |CDF_a - CDF_b| over bucket edges, 0..1
};
Result<Homogeneity> compare_histograms(std::span<const double> a, std::span<const double> b);

// Two sides' histograms, one a run (a boot), over the same buckets: the Kolmogorov-Smirnov
// distance of the sides' pooled histograms, and the share of the splits of all the runs into
// groups of the sides' sizes whose pooled histograms are at least as far apart. Runs are
// permuted, not events: the events of one boot share its host's conditions, and tested as
// independent they call two halves of one kernel's boots different. Exact up to kExactSplits
// splits, else kDraws random ones (a fixed seed).
struct HistogramPermutation {
    double ks_d = 0;
    double p = 1;
    double splits = 0;
    bool exact = false;
};
Result<HistogramPermutation> histogram_permutation(const std::vector<std::vector<double>>& a,
                                                   const std::vector<std::vector<double>>& b);

// C(n, k) as a double: the number of splits, compared against a cap, never enumerated past it.
double choose(size_t n, size_t k);

} // namespace initbench::stats
