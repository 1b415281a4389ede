#include "common/statistics.h"

#include "common/text.h"

#include <cmath>

namespace initbench {

namespace {
// As records write them, and as mmtests prints them.
constexpr Named<Agg> kAggNames[] = {{Agg::amean, "amean"}, {Agg::hmean, "hmean"}, {Agg::gmean, "gmean"}};
constexpr Named<Agg> kAggLabels[] = {{Agg::amean, "Amean"}, {Agg::hmean, "Hmean"}, {Agg::gmean, "Gmean"}};
} // namespace

Agg parse_agg(std::string_view text) {
    return value_named(kAggNames, text).value_or(Agg::amean);
}

std::string_view agg_label(Agg agg) {
    return name_of(kAggLabels, agg);
}

double arithmetic_mean(std::span<const double> xs) {
    if (xs.empty())
        return 0;
    double sum = 0;
    for (double x : xs)
        sum += x;
    return sum / double(xs.size());
}

double sample_variance(std::span<const double> xs, double mean) {
    if (xs.size() < 2)
        return 0;
    double ss = 0;
    for (double x : xs)
        ss += (x - mean) * (x - mean);
    return ss / double(xs.size() - 1);
}

double sample_stddev(std::span<const double> xs, double mean) { return std::sqrt(sample_variance(xs, mean)); }

std::optional<double> aggregate(std::span<const double> xs, Agg agg) {
    if (xs.empty())
        return std::nullopt;
    if (agg == Agg::amean)
        return arithmetic_mean(xs);
    double sum = 0;
    for (double x : xs) {
        if (x <= 0)
            return std::nullopt;
        sum += agg == Agg::hmean ? 1 / x : std::log(x);
    }
    const double n = double(xs.size());
    return agg == Agg::hmean ? n / sum : std::exp(sum / n);
}

} // namespace initbench
