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

// The percentiles a probe with a log2 histogram of nanoseconds reports of it
// (bpf/core/log2.h's add_percentiles).
inline constexpr MetricDecl kLog2PercentileMetrics[] = {
    {"percentiles.p50", "ns", "lower"},
    {"percentiles.p90", "ns", "lower"},
    {"percentiles.p99", "ns", "lower"},
};

// A record's metrics from its parts, in order: its own, then shared sets.
template <size_t... N>
constexpr std::array<MetricDecl, (N + ...)> joined_metrics(const MetricDecl (&... parts)[N]) {
    std::array<MetricDecl, (N + ...)> all{};
    size_t i = 0;
    for (std::span<const MetricDecl> part : {std::span<const MetricDecl>(parts)...})
        for (const MetricDecl& m : part)
            all[i++] = m;
    return all;
}

// A BPF probe's metrics: its own, then the cost's.
template <size_t N> constexpr auto with_probe_cost(const MetricDecl (&own)[N]) {
    return joined_metrics(own, kProbeCostMetrics);
}

// A BPF probe with a log2 histogram of nanoseconds: its own, its percentiles, the cost's.
template <size_t N> constexpr auto with_percentiles_and_cost(const MetricDecl (&own)[N]) {
    return joined_metrics(own, kLog2PercentileMetrics, kProbeCostMetrics);
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
