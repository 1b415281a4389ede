// The statistics core shared by the guest (repeat and round summaries) and the host
// (compare): means by a metric's aggregation kind and the sample standard deviation. The
// host's tests and intervals (host/compare/stats.h) build on these.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace initbench {

// How a metric's samples combine: rates by the harmonic mean (stress-ng, mmtests' Hmean).
enum class Agg { amean, hmean, gmean };

// "hmean", "gmean"; anything else ("mean", "avg", "sum", unknown) is the arithmetic mean.
Agg parse_agg(std::string_view text);
std::string_view agg_label(Agg agg); // "Amean", "Hmean", "Gmean" as mmtests prints them

// 0 for no samples.
double arithmetic_mean(std::span<const double> xs);
// With n - 1; 0 for fewer than two samples.
double sample_variance(std::span<const double> xs, double mean);
double sample_stddev(std::span<const double> xs, double mean);
// The mean by `agg`; none for no samples, or a value <= 0 under the harmonic or geometric
// mean (a round without operations has no harmonic mean worth printing).
std::optional<double> aggregate(std::span<const double> xs, Agg agg);

} // namespace initbench
