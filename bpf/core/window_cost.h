// What a probe's BPF programs cost in one window. The kernel counts each program's runs and
// their time from its load on (bpf_prog_info's run_cnt and run_time_ns), through the
// set-up and every window before: a window's cost is what the counts grew by between the
// reading at its opening and the one at its close. Plain arithmetic, apart from the reading
// (bpf/core/probe_cost.h), so that the host's unit tests check it.
#pragma once

#include "common/result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace initbench {

// One loaded program's counters as read: cumulative since the program was loaded.
struct ProgramRuns {
    std::string name;
    uint64_t runs = 0, ns = 0;
};

// The record's "cost" (all but its "method") over the window between two readings of the
// same programs, `first` at its opening and `last` at its close: runs, ns, ns_per_run (null
// without a run), cpu_pct of cpu_s (the window's length times the online CPUs) and each
// program's runs and ns. An error when the readings are not of the same programs.
Result<nlohmann::json> window_cost(const std::vector<ProgramRuns>& first,
                                   const std::vector<ProgramRuns>& last, double cpu_s);

} // namespace initbench
