#include "common/linear_hist.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace initbench {

double LinearHistogramSpec::unit_ns() const {
    if (unit == "ns")
        return 1;
    if (unit == "ms")
        return 1e6;
    return 1e3;
}

unsigned LinearHistogramSpec::buckets() const {
    // In double first: a huge MAX or a tiny STEP must read as too many, never wrap around.
    const double n = std::ceil((max - min) / step - 1e-9);
    return n > kMaxLinearBuckets ? kMaxLinearBuckets + 1 : static_cast<unsigned>(std::max(n, 0.0));
}

std::optional<LinearHistogramSpec> parse_linear_hist(std::string_view text, std::string& why) {
    std::vector<std::string> parts(1);
    for (char c : text) {
        if (c == ':')
            parts.emplace_back();
        else
            parts.back().push_back(c);
    }
    if (parts.size() != 4) {
        why = "expected MIN:MAX:STEP:UNIT, e.g. 10:100:5:us";
        return std::nullopt;
    }
    double v[3];
    for (int i = 0; i < 3; i++) {
        char* end = nullptr;
        v[i] = std::strtod(parts[i].c_str(), &end);
        if (parts[i].empty() || *end || !std::isfinite(v[i]) || v[i] < 0) {
            why = "'" + parts[i] + "' is not a non-negative number";
            return std::nullopt;
        }
    }
    LinearHistogramSpec s{v[0], v[1], v[2], parts[3]};
    if (s.unit != "ns" && s.unit != "us" && s.unit != "ms")
        why = "unit must be ns, us or ms";
    else if (s.step <= 0 || s.max <= s.min)
        why = "needs MIN < MAX and STEP > 0";
    else if (s.buckets() > kMaxLinearBuckets)
        why = "more than " + std::to_string(kMaxLinearBuckets) + " buckets";
    if (!why.empty())
        return std::nullopt;
    return s;
}

} // namespace initbench
