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
constexpr std::array<MetricDecl, N + std::size(kProbeCostMetrics)>
with_probe_cost(const MetricDecl (&own)[N]) {
    std::array<MetricDecl, N + std::size(kProbeCostMetrics)> all{};
    size_t i = 0;
    for (const MetricDecl& m : own)
        all[i++] = m;
    for (const MetricDecl& m : kProbeCostMetrics)
        all[i++] = m;
    return all;
}

// What makes one probe's record differ from another's. Most probes measure the whole
// system, so their records are told apart by the probe alone.
inline constexpr std::string_view kProbeIdentity[] = {"probe"};
struct ProbeRecordParts {
    std::span<const MetricDecl> metrics;
    std::span<const std::string_view> identity = kProbeIdentity;
    std::span<const HistogramDecl> histograms = {};
    std::span<const EntryName> entries = {};
};

// A probe's record description: its kind is the probe's name.
constexpr RecordType probe_record(std::string_view name, ProbeRecordParts parts) {
    return {.type = "probe",
            .kind = name,
            .identity = parts.identity,
            .dimensions = {},
            .metrics = parts.metrics,
            .histograms = parts.histograms,
            .entries = parts.entries};
}

struct ProbeDecl {
    const RecordType* record; // record->kind is the probe's name
    std::span<const KeySpec> keys;
    constexpr std::string_view name() const { return record->kind; }
};

} // namespace initbench
