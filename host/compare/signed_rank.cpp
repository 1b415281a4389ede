#include "host/compare/signed_rank.h"

#include "host/compare/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace initbench::stats {

Result<double> signed_rank_p(std::span<const double> d, double bound, bool above) {
    IB_TRY(check_finite(d));
    std::vector<double> x;
    for (double v : d)
        if (v != bound)
            x.push_back(v - bound);
    if (x.empty())
        return Error{"the signed-rank test has no difference off the bound"};
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t i, size_t j) { return std::fabs(x[i]) < std::fabs(x[j]); });
    // Ranks doubled, so that a tie's mean rank stays a whole number: ranks i+1 .. j share
    // (i + 1 + j) / 2, doubled i + 1 + j.
    std::vector<size_t> rank2(x.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i + 1;
        while (j < order.size() && std::fabs(x[order[j]]) == std::fabs(x[order[i]]))
            j++;
        for (size_t k = i; k < j; k++)
            rank2[order[k]] = i + 1 + j;
        i = j;
    }
    size_t observed = 0, total = 0;
    for (size_t i = 0; i < x.size(); i++) {
        total += rank2[i];
        if (x[i] > 0)
            observed += rank2[i];
    }
    // P(sum = s) over independent fair signs, one rank at a time.
    std::vector<double> dist(total + 1, 0.0);
    dist[0] = 1;
    size_t reach = 0;
    for (size_t r : rank2) { // r >= 2
        reach += r;
        for (size_t s = reach; s >= r; s--)
            dist[s] = 0.5 * (dist[s] + dist[s - r]);
        for (size_t s = 0; s < r; s++)
            dist[s] *= 0.5;
    }
    double p = 0;
    for (size_t s = 0; s <= total; s++)
        if (above ? s >= observed : s <= observed)
            p += dist[s];
    return std::min(p, 1.0);
}

} // namespace initbench::stats
