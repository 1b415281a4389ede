#include "host/compare/sequential.h"

#include <algorithm>
#include <vector>

namespace initbench {

Look look_at(const SequentialPlan& plan, size_t boots_a_side) {
    Look look;
    look.boots = std::min(boots_a_side, plan.last_look_boots());
    if (look.boots < plan.min_boots || plan.looks() == 0)
        return look;
    look.number = (look.boots - plan.min_boots) / plan.step + 1;
    look.boots = plan.min_boots + (look.number - 1) * plan.step; // between looks: the last one
    look.alpha = stats::look_alpha(plan.alpha, look.number, plan.looks(), plan.rho);
    return look;
}

size_t permutation_min_boots(double alpha, size_t max_boots, double rho, size_t step, size_t strata) {
    step = std::max<size_t>(step, 1);
    strata = std::max<size_t>(strata, 1);
    const size_t first = std::max<size_t>(step, (2 + step - 1) / step * step);
    for (size_t n = first; n < max_boots; n += step) {
        const SequentialPlan plan{n, max_boots, alpha, rho, step};
        const std::vector<stats::StratumSize> sizes(strata, {n / strata, n / strata});
        if (stats::permutation_min_p(sizes) < stats::look_alpha(alpha, 1, plan.looks(), rho))
            return n;
    }
    return std::max<size_t>(max_boots / step * step, first);
}

bool LookVerdicts::decided() const {
    return unmatched.empty() && !verdicts.empty() &&
           std::all_of(verdicts.begin(), verdicts.end(),
                       [](const ChosenVerdict& v) { return v.change.verdict != Decision::unknown; });
}

LookVerdicts chosen_verdicts(const Report& report, const std::vector<std::string>& globs) {
    LookVerdicts out;
    std::vector<bool> used(globs.size(), false);
    for (const auto& m : report.metrics) {
        bool chosen = globs.empty() && std::count(m.id.begin(), m.id.end(), '/') == 1;
        for (size_t g = 0; g < globs.size(); g++)
            if (metric_matches(globs[g], m.id, m.name))
                chosen = used[g] = true;
        if (!chosen)
            continue;
        for (size_t i = 0; i < m.changes.size(); i++)
            out.verdicts.push_back({m.id, report.sides[i + 1].label, m.changes[i]});
    }
    for (size_t g = 0; g < globs.size(); g++)
        if (!used[g])
            out.unmatched.push_back(globs[g]);
    return out;
}

} // namespace initbench
