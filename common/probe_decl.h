// What the host and the guest know of a probe before it runs: its name, its configuration
// keys and its record's description. Each probe declares its own in bpf/X/X_probe.h (host
// and guest build it, no libbpf); the key table (config_keys()) and the record
// descriptions (record_types()) gather every declaration through the generated catalog
// (cmake/Catalog.cmake), so that adding a probe adds no line to a central table.
#pragma once

#include "common/config.h"
#include "common/key_rows.h"
#include "common/record_description.h"

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace initbench {

// What a probe that runs BPF programs cost in the window (bpf/core/probe_cost.h): its
// programs' share of the window's CPU time, and their time per run.
inline constexpr MetricDecl kProbeCostMetrics[] = {
    {"cost.cpu_pct", "%", "lower"},
    {"cost.ns_per_run", "ns", "lower"},
};

// A BPF probe's metrics: its own, then the cost's.
template <size_t N>
constexpr std::array<MetricDecl, N + std::size(kProbeCostMetrics)> with_probe_cost(const MetricDecl (&own)[N]) {
    std::array<MetricDecl, N + std::size(kProbeCostMetrics)> all{};
    size_t i = 0;
    for (const MetricDecl& m : own)
        all[i++] = m;
    for (const MetricDecl& m : kProbeCostMetrics)
        all[i++] = m;
    return all;
}

struct ProbeDecl {
    std::string_view name;
    const RecordType* record;
    std::span<const KeySpec> keys;
};

} // namespace initbench
