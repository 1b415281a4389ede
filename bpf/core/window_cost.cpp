#include "bpf/core/window_cost.h"

namespace initbench {

Result<nlohmann::json> window_cost(const std::vector<ProgramRuns>& first,
                                   const std::vector<ProgramRuns>& last, double cpu_s) {
    if (first.size() != last.size())
        return Error{"the probe's programs changed during the window"};
    uint64_t runs = 0, ns = 0;
    nlohmann::json programs = nlohmann::json::array();
    for (size_t p = 0; p < last.size(); p++) {
        const uint64_t p_runs = last[p].runs - first[p].runs, p_ns = last[p].ns - first[p].ns;
        programs.push_back({{"name", last[p].name}, {"runs", p_runs}, {"ns", p_ns}});
        runs += p_runs;
        ns += p_ns;
    }
    const double cpu_pct = cpu_s > 0 ? 100.0 * double(ns) / 1e9 / cpu_s : 0.0;
    nlohmann::json cost{{"supported", true}, {"runs", runs}, {"ns", ns}, {"cpu_pct", cpu_pct},
                        {"programs", std::move(programs)}};
    // No run, no time per run: the field is null and no metric claims it.
    cost["ns_per_run"] = runs ? nlohmann::json(double(ns) / double(runs)) : nlohmann::json();
    return cost;
}

} // namespace initbench
