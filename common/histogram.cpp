#include "common/histogram.h"

namespace initbench {

std::optional<double> percentile(const std::vector<Bucket>& buckets, double p) {
    uint64_t total = 0;
    for (const auto& b : buckets)
        total += b.count;
    if (total == 0 || !(p > 0 && p <= 100))
        return std::nullopt;
    const double rank = p / 100.0 * static_cast<double>(total);
    double seen = 0;
    for (const auto& b : buckets) {
        if (b.count == 0)
            continue;
        if (seen + static_cast<double>(b.count) >= rank) {
            double within = (rank - seen) / static_cast<double>(b.count);
            return b.lo + within * (b.hi - b.lo);
        }
        seen += static_cast<double>(b.count);
    }
    return buckets.back().hi;
}

} // namespace initbench
