// A linear histogram's shape as users write it, bpftrace lhist()-style: "MIN:MAX:STEP:UNIT",
// e.g. "10:100:5:us" (the mm_cid thread's task_mm_cid_work histogram).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace initbench {

struct LinearHistogramSpec {
    double min = 0, max = 100, step = 5;
    std::string unit = "us"; // ns | us | ms
    double unit_ns() const;  // nanoseconds per unit
    unsigned buckets() const; // between min and max, not counting under/overflow;
                              // kMaxLinearBuckets + 1 stands for "too many"
};

inline constexpr unsigned kMaxLinearBuckets = 256;

// The spec, or why `text` is not one (in `why`).
std::optional<LinearHistogramSpec> parse_linear_hist(std::string_view text, std::string& why);

} // namespace initbench
