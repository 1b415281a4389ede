#include "common/statistics.h"

#include <cmath>

namespace initbench {

Agg parse_agg(std::string_view text) {
    if (text == "hmean")
        return Agg::hmean;
    if (text == "gmean")
        return Agg::gmean;
    return Agg::amean;
}

std::string_view agg_label(Agg agg) {
    switch (agg) {
    case Agg::hmean:
        return "Hmean";
    case Agg::gmean:
        return "Gmean";
    case Agg::amean:
        break;
    }
    return "Amean";
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
