#include "host/compare/step_budget.h"

#include "common/text.h"
#include "host/compare/sequential.h"
#include "host/compare/stats.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace initbench {
namespace {

// Past this many boots a side, a setup is not offered as advice: a bisection of ten steps
// would boot hundreds of times.
constexpr size_t kMostBoots = 20;

std::string pct(double x) {
    return format_number(x, "%.3g") + " %";
}

double t_two_sided(double df, double level) {
    boost::math::students_t dist(df);
    return boost::math::quantile(boost::math::complement(dist, level / 2));
}

// The level of a step's last look: bisect-step's alpha spending over its looks.
double last_look_level(const StepBudget& b) {
    SequentialPlan plan;
    plan.min_boots = b.boots;
    plan.max_boots = std::max(b.boots, b.max_boots);
    plan.alpha = 1 - b.confidence;
    return look_at(plan, plan.max_boots).alpha;
}

// The half-width of the interval of a change at `level`, n baseline boots against m step
// boots of one standard deviation `sd`: the prediction interval for one step boot (icount
// only), Welch's otherwise.
double reach(double sd, size_t n, size_t m, double level) {
    if (sd == 0)
        return 0;
    const double dn = double(n), dm = double(m);
    if (m == 1)
        return t_two_sided(dn - 1, level) * sd * std::sqrt(1 + 1 / dn);
    const double share = 1 / dn + 1 / dm;
    const double df = share * share / (1 / (dn * dn * (dn - 1)) + 1 / (dm * dm * (dm - 1)));
    return t_two_sided(df, level) * sd * std::sqrt(share);
}

struct Verdict {
    bool decides = false;
    double reach_pct = 0;
    std::string why;
};

Verdict judge(double sd_pct, size_t n, const StepBudget& b) {
    Verdict v;
    const size_t m = std::max(b.boots, b.max_boots);
    const double level = last_look_level(b);
    const double limit = std::fabs(b.limit_pct);
    if (m == 1 && !b.deterministic) {
        v.why = "one boot a step cannot be judged on the wall clock";
        return v;
    }
    if (!b.deterministic) {
        const double min_p = stats::permutation_min_p(n, m);
        if (min_p >= level) {
            v.why = "the permutation test's smallest p with " + std::to_string(n) +
                    " baseline and " + std::to_string(m) + " step boots is " +
                    format_number(min_p, "%.3g") + ", not below the last look's level " +
                    format_number(level, "%.3g") + ": no commit could be shown bad";
            return v;
        }
    }
    v.reach_pct = reach(sd_pct, n, m, level);
    v.decides = v.reach_pct < limit;
    v.why = "a step of " + std::to_string(m) + " boot(s) against " + std::to_string(n) +
            " baseline boots (sd " + pct(sd_pct) + ") reaches +-" + pct(v.reach_pct) +
            " at its last look (level " + format_number(level, "%.3g") + "), " +
            (v.decides ? "inside" : "not inside") + " the limit " + pct(b.limit_pct);
    return v;
}

std::string advice(double sd_pct, size_t n, const StepBudget& b) {
    const size_t m = std::max(b.boots, b.max_boots);
    for (size_t more = m + 1; more <= kMostBoots; more++) {
        StepBudget wider = b;
        wider.max_boots = more;
        if (judge(sd_pct, n, wider).decides)
            return "--max-boots " + std::to_string(more) +
                   " would (the step boots again only while "
                   "undecided), if the step's boots spread as the baseline's";
    }
    for (size_t boots = n + 1; boots <= kMostBoots; boots++)
        if (judge(sd_pct, boots, b).decides)
            return std::to_string(boots) + " baseline boots would, if they spread as these";
    return "no budget up to " + std::to_string(kMostBoots) +
           " boots a side decides: widen the "
           "limit, or make the boots repeat (--clock icount with nokaslr norandmaps)";
}

} // namespace

StepReach step_reach(std::span<const double> baseline_boots, const StepBudget& budget) {
    StepReach r;
    const size_t n = baseline_boots.size();
    if (n < 2) {
        r.why = "the baseline is " + std::to_string(n) +
                " boot(s): the spread between boots, "
                "which a step is judged against, needs two (the rounds of one boot are not "
                "independent samples of it)";
        r.advice = "boot the good kernel twice or more and give every results file to --baseline";
        return r;
    }
    auto s = stats::summarize(baseline_boots, Agg::amean);
    if (!s || s.value().amean == 0) {
        r.why = s ? "the baseline's mean is 0: a percent change means nothing"
                  : "the baseline's boots: " + s.error().message();
        r.advice = "choose another metric";
        return r;
    }
    const double sd_pct = s.value().stddev / std::fabs(s.value().amean) * 100;
    const Verdict v = judge(sd_pct, n, budget);
    r.decides = v.decides;
    r.reach_pct = v.reach_pct;
    r.why = v.why;
    if (!r.decides)
        r.advice = advice(sd_pct, n, budget);
    return r;
}

} // namespace initbench
