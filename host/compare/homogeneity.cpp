// Two histograms over the same buckets compared: Pearson's chi-square test of homogeneity,
// the Kolmogorov-Smirnov distance, and that distance's permutation test over runs (stats.h).
#include "host/compare/stats.h"

#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace initbench::stats {

Result<Homogeneity> compare_histograms(std::span<const double> a, std::span<const double> b) {
    if (a.size() != b.size())
        return Error{"histograms have different buckets"};
    IB_TRY(check_finite(a));
    IB_TRY(check_finite(b));
    for (size_t i = 0; i < a.size(); i++)
        if (a[i] < 0 || b[i] < 0)
            return Error{"negative bucket count"};
    const double na = std::accumulate(a.begin(), a.end(), 0.0);
    const double nb = std::accumulate(b.begin(), b.end(), 0.0);
    if (na == 0 || nb == 0)
        return Error{"an empty histogram"};
    const double n = na + nb;

    Homogeneity h;
    double ca = 0, cb = 0;
    for (size_t i = 0; i < a.size(); i++) {
        ca += a[i];
        cb += b[i];
        h.ks_d = std::max(h.ks_d, std::fabs(ca / na - cb / nb));
    }

    // Merge buckets until both rows expect >= 5 events; a short tail joins the last cell.
    std::vector<std::pair<double, double>> cells;
    std::pair<double, double> open{0, 0};
    const double smaller = std::min(na, nb);
    for (size_t i = 0; i < a.size(); i++) {
        open.first += a[i];
        open.second += b[i];
        if ((open.first + open.second) * smaller / n >= 5) {
            cells.push_back(open);
            open = {0, 0};
        }
    }
    if (open.first + open.second > 0) {
        if (cells.empty())
            cells.push_back(open);
        else {
            cells.back().first += open.first;
            cells.back().second += open.second;
        }
    }
    if (cells.size() < 2)
        return h; // one cell: nothing to test, p stays 1
    for (const auto& [oa, ob] : cells) {
        const double col = oa + ob;
        const double ea = col * na / n, eb = col * nb / n;
        h.chi2 += (oa - ea) * (oa - ea) / ea + (ob - eb) * (ob - eb) / eb;
    }
    h.df = unsigned(cells.size() - 1);
    boost::math::chi_squared dist(h.df);
    h.p = boost::math::cdf(boost::math::complement(dist, h.chi2));
    return h;
}

namespace {

// The KS distance between the pooled counts of the runs `on_a` marks and of the others.
double split_distance(const std::vector<std::vector<double>>& runs, const std::vector<bool>& on_a,
                      std::vector<double>& a, std::vector<double>& b) {
    std::fill(a.begin(), a.end(), 0.0);
    std::fill(b.begin(), b.end(), 0.0);
    for (size_t r = 0; r < runs.size(); r++)
        for (size_t i = 0; i < a.size(); i++)
            (on_a[r] ? a : b)[i] += runs[r][i];
    const double na = std::accumulate(a.begin(), a.end(), 0.0), nb = std::accumulate(b.begin(), b.end(), 0.0);
    if (na == 0 || nb == 0)
        return 1; // one side without events is as far as distributions go
    double ca = 0, cb = 0, d = 0;
    for (size_t i = 0; i < a.size(); i++) {
        ca += a[i];
        cb += b[i];
        d = std::max(d, std::fabs(ca / na - cb / nb));
    }
    return d;
}

} // namespace

Result<HistogramPermutation> histogram_permutation(const std::vector<std::vector<double>>& a,
                                                   const std::vector<std::vector<double>>& b) {
    if (a.empty() || b.empty())
        return Error{"a run a side is needed"};
    std::vector<std::vector<double>> runs = a;
    runs.insert(runs.end(), b.begin(), b.end());
    const size_t buckets = runs[0].size();
    for (const auto& r : runs) {
        if (r.size() != buckets)
            return Error{"histograms have different buckets"};
        IB_TRY(check_finite(r));
    }
    std::vector<double> pa(buckets), pb(buckets);
    std::vector<bool> on_a(runs.size(), false);
    std::fill(on_a.begin(), on_a.begin() + long(a.size()), true);
    HistogramPermutation out;
    out.ks_d = split_distance(runs, on_a, pa, pb);
    // The same counts summed in another order differ in their last bits: such a split ties.
    const double at_least = out.ks_d - 1e-12;
    double hits = 0;
    if (choose(runs.size(), a.size()) <= double(kExactSplits)) {
        // prev_permutation walks every arrangement of a.size() trues once, from the observed.
        do {
            hits += split_distance(runs, on_a, pa, pb) >= at_least;
            out.splits++;
        } while (std::prev_permutation(on_a.begin(), on_a.end()));
        out.p = hits / out.splits;
        out.exact = true;
        return out;
    }
    std::mt19937_64 random(0x1b5eed); // fixed: a rerun prints the same p
    std::vector<size_t> order(runs.size());
    std::iota(order.begin(), order.end(), 0);
    for (size_t d = 0; d < kDraws; d++) {
        std::shuffle(order.begin(), order.end(), random);
        std::fill(on_a.begin(), on_a.end(), false);
        for (size_t i = 0; i < a.size(); i++)
            on_a[order[i]] = true;
        hits += split_distance(runs, on_a, pa, pb) >= at_least;
    }
    out.splits = double(kDraws);
    out.p = (1 + hits) / (1 + double(kDraws));
    return out;
}

} // namespace initbench::stats
