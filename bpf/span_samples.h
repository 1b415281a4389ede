// span's per-sample numbers: the spans that ended in each of the phase's sampling intervals
// and their average, from the running totals read at each sampling point, and the stddev
// across intervals of that average (how the RCU seed's bench reported its grace periods).
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace initbench {

class SpanSamples {
public:
    void clear() { *this = SpanSamples{}; }

    // The running totals (spans, their summed ns) at one sampling point.
    void add(uint64_t count, uint64_t sum_ns) {
        const uint64_t n = count - last_count_;
        counts_.push_back(n);
        avgs_.push_back(n ? double(sum_ns - last_sum_ns_) / double(n) : -1);
        last_count_ = count;
        last_sum_ns_ = sum_ns;
    }

    // {"count": [...], "avg_ns": [... null for an interval without spans], "avg_ns_stddev"}:
    // the sample stddev over the intervals that had spans, null for fewer than two.
    nlohmann::json to_json() const {
        nlohmann::json avg = nlohmann::json::array();
        double sum = 0, sum_sq = 0;
        size_t n = 0;
        for (double a : avgs_) {
            if (a < 0) {
                avg.push_back(nullptr);
                continue;
            }
            avg.push_back(a);
            sum += a;
            sum_sq += a * a;
            n++;
        }
        nlohmann::json stddev = nullptr;
        if (n > 1)
            stddev = std::sqrt(std::max((sum_sq - sum * sum / double(n)) / double(n - 1), 0.0));
        return {{"count", counts_}, {"avg_ns", avg}, {"avg_ns_stddev", stddev}};
    }

private:
    uint64_t last_count_ = 0, last_sum_ns_ = 0;
    std::vector<uint64_t> counts_;
    std::vector<double> avgs_; // -1: no span in the interval
};

} // namespace initbench
