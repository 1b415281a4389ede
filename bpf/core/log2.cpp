#include "bpf/core/log2.h"

#include "common/probe_decl.h"

#include <algorithm>
#include <string>

namespace initbench {

nlohmann::json log2_json(const unsigned long long* slots, size_t n) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < n; i++)
        if (slots[i])
            out.push_back({1ull << i, slots[i]});
    return out;
}

std::vector<Bucket> log2_bucket_list(const unsigned long long* slots, size_t n) {
    std::vector<Bucket> buckets;
    for (size_t i = 0; i < n; i++)
        buckets.push_back({i == 0 ? 0.0 : double(1ull << i), double(2ull << i), slots[i]});
    return buckets;
}

nlohmann::json log2_percentiles(const unsigned long long* slots, size_t n, uint64_t max) {
    std::vector<Bucket> buckets = log2_bucket_list(slots, n);
    nlohmann::json out = nlohmann::json::object();
    for (int p : {50, 90, 99})
        if (auto v = percentile(buckets, p))
            out["p" + std::to_string(p)] = std::min(*v, double(max));
    return out;
}

namespace {

// The metric names add_percentiles writes: kLog2PercentileMetrics' (MetricName is made at
// compile time, so the names are spelt here and checked against the declaration).
constexpr MetricName kPercentileNames[] = {"percentiles.p50", "percentiles.p90", "percentiles.p99"};
static_assert(
    [] {
        if (std::size(kPercentileNames) != std::size(kLog2PercentileMetrics))
            return false;
        for (size_t i = 0; i < std::size(kPercentileNames); i++)
            if (kPercentileNames[i].text != kLog2PercentileMetrics[i].name)
                return false;
        return true;
    }(),
    "add_percentiles must write exactly the declared kLog2PercentileMetrics");

} // namespace

void add_percentiles(RecordBuilder& b, nlohmann::json& record, nlohmann::json pct) {
    for (MetricName name : kPercentileNames)
        b.metric(name, pct.value(std::string(name.text.substr(name.text.find('.') + 1)),
                                 nlohmann::json()));
    record["percentiles"] = std::move(pct);
}

} // namespace initbench
