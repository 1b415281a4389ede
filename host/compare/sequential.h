// The sequential design of `initbench ab` (and bisect-step's adaptive boots): after every
// boot a side, the chosen metrics are judged again at a level that alpha spending allows at
// that look, so that stopping at the first SAME or DIFFERENT keeps the error rates compare
// promises for one test. Pure functions over compare's reports.
#pragma once

#include "host/compare/compare.h"

#include <string>
#include <vector>

namespace initbench {

// Looks are taken at min_boots, min_boots + step, ... boots a side, up to max_boots (step 1
// but where boots at once must be balanced over host CPUs: ab's slot_of_boot).
struct SequentialPlan {
    size_t min_boots = 2, max_boots = 10;
    double alpha = 0.05; // 1 - --confidence: the error rate promised over all looks
    double rho = 1;      // alpha spending's power family (stats::spent_alpha)
    size_t step = 1;
    size_t looks() const { return max_boots >= min_boots ? (max_boots - min_boots) / step + 1 : 0; }
    size_t last_look_boots() const { return min_boots + (looks() ? looks() - 1 : 0) * step; }
};

struct Look {
    size_t number = 0; // 1-based; 0 when there are too few boots for a look
    size_t boots = 0;  // a side
    double alpha = 0;  // the level this look may test at
};
Look look_at(const SequentialPlan& plan, size_t boots_a_side);

// The fewest boots a side (a multiple of step) for the first look of a plan tested by the
// permutation test: the first n whose look, with looks from n to max_boots, has a level above the test's smallest p
// at n a side (stats::permutation_min_p). Looks before it would spend alpha on tests that
// cannot find a change: 5 for alpha 0.05 up to 10 boots a side (2 a side give p >= 1/3).
// strata: the test permutes within this many host CPU sets, each holding n / strata boots a
// side at a look (ab's slots, step a multiple of strata).
size_t permutation_min_boots(double alpha, size_t max_boots, double rho = 1, size_t step = 1, size_t strata = 1);

// The verdicts of the chosen metrics at one look: every (metric, later side) pair.
struct ChosenVerdict {
    std::string id, side;
    Change change;
};
struct LookVerdicts {
    std::vector<ChosenVerdict> verdicts;
    std::vector<std::string> unmatched; // globs that matched no metric
    bool decided() const;               // every verdict is SAME or DIFFERENT
};

// The metrics the globs name (metric_matches), or, with no globs, every metric of a phase
// record (an id with a single '/': "fork/ops_per_s").
LookVerdicts chosen_verdicts(const Report& report, const std::vector<std::string>& globs);

} // namespace initbench
