// Two histograms over the same buckets compared: Pearson's chi-square test of homogeneity
// and the Kolmogorov-Smirnov distance (stats.h).
#include "host/compare/stats.h"

#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
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

} // namespace initbench::stats
