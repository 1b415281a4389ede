// span's per-sample numbers: the spans that ended in each of the phase's sampling intervals
// and their average, from the running totals read at each sampling point, and the stddev
// across intervals of that average (how the RCU seed's bench reported its grace periods).
#pragma once

#include "common/statistics.h"

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
        std::vector<double> had_spans;
        for (double a : avgs_) {
            avg.push_back(a < 0 ? nlohmann::json(nullptr) : nlohmann::json(a));
            if (a >= 0)
                had_spans.push_back(a);
        }
        return {{"count", counts_}, {"avg_ns", avg}, {"avg_ns_stddev", stddev_or_null(had_spans)}};
    }

    static nlohmann::json stddev_or_null(const std::vector<double>& xs) {
        if (xs.size() < 2)
            return nullptr;
        return sample_stddev(xs, arithmetic_mean(xs));
    }

private:
    uint64_t last_count_ = 0, last_sum_ns_ = 0;
    std::vector<uint64_t> counts_;
    std::vector<double> avgs_; // -1: no span in the interval
};

// A quantity sampled in the same intervals as the spans (a kthread's stime ticks), per span:
// the ratio in each interval that had spans, then its mean and sample stddev over those
// intervals, as the RCU seed's bench reported "ticks per grace period". Null when the two
// series differ in length or no interval had a span.
inline nlohmann::json per_span_in_intervals(const std::vector<uint64_t>& values,
                                            const std::vector<uint64_t>& span_counts) {
    if (values.size() != span_counts.size())
        return nullptr;
    std::vector<double> ratios;
    for (size_t i = 0; i < values.size(); i++)
        if (span_counts[i])
            ratios.push_back(double(values[i]) / double(span_counts[i]));
    if (ratios.empty())
        return nullptr;
    return {{"avg", arithmetic_mean(ratios)},
            {"stddev", SpanSamples::stddev_or_null(ratios)},
            {"intervals", ratios.size()}};
}

} // namespace initbench
