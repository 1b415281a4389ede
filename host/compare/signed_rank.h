// Wilcoxon's signed-rank test: a paired test that assumes no shape of the differences, only
// their symmetry about the bound when the null holds. bisect-step takes it beside Yuen's
// test (stats::paired_log_ratio) to show interleaved boots apart where the two sides' own
// test cannot: a host whose speed moves during a step spreads both sides over each other.
#pragma once

#include "common/result.h"

#include <span>

namespace initbench::stats {

// The one-sided p that the differences d lie above `bound` (above) or below it, by their
// signed ranks: each |d_i - bound| ranked (ties share the mean rank), the statistic the sum
// of the ranks of those above the bound, and its exact distribution over all 2^n signs.
// Differences equal to the bound are dropped. With n left, the smallest p is 2^-n: 8 pairs
// reach 0.0039. Refuses NaN and infinities, and fewer than one difference left.
Result<double> signed_rank_p(std::span<const double> d, double bound, bool above);

} // namespace initbench::stats
