// Percentiles estimated from bucketed counts (log2 or linear), as the probes report them.
// Within a bucket values are taken as evenly spread: the estimate is exact to the bucket.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace initbench {

struct Bucket {
    double lo = 0, hi = 0; // [lo, hi)
    uint64_t count = 0;
};

// The p-th percentile (0 < p <= 100) of the counted values; nothing if there are none.
std::optional<double> percentile(const std::vector<Bucket>& buckets, double p);

} // namespace initbench
