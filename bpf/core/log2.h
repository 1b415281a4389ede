// The probes' log2 histograms as records carry them: non-empty buckets only, as
// [lower bound, count] where a bucket spans [lower, 2 * lower) and the first [0, 2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/histogram.h"
#include "common/record_types.h"

namespace initbench {

nlohmann::json log2_json(const unsigned long long* slots, size_t n);
std::vector<Bucket> log2_bucket_list(const unsigned long long* slots, size_t n);
// p50/p90/p99 estimated from the buckets (capped at the observed max).
nlohmann::json log2_percentiles(const unsigned long long* slots, size_t n, uint64_t max);
// The record's "percentiles" (as log2_percentiles gives them) and its metrics
// percentiles.pNN (kLog2PercentileMetrics): those `pct` has; an absent one could not be
// computed.
void add_percentiles(RecordBuilder& b, nlohmann::json& record, nlohmann::json pct);

} // namespace initbench
