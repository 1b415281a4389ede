// The declarations behind common/record_types.h: one RecordType per record type the guest
// writes (each probe kind and command kind as one), as constant tables, so that a writer's
// metric name is checked when it is compiled. The records that are no probe's are declared
// here; each probe declares its own in bpf/X/X_probe.h, and kRecordTypes gathers them all.
// docs/schema/ describes the same records, and tests/unit/record_types_test.cpp checks that
// the two agree.
#pragma once

#include "common/record_description.h"
#include "probe_catalog.h" // generated: every probe's bpf/X/X_probe.h

#include <array>
#include <span>
#include <string_view>

namespace initbench {

namespace record_decls {

using sv = std::string_view;

// A command's mean over its runs (initbench.repeat), counted by perf's counters
// (bpf/perf/perf_probe.h).
inline constexpr MetricDecl kCommand[] = {
    {"elapsed_s.mean", "s", "lower"},
    {"counters.*.mean", "", "lower"},
    {"counters.*.derived.value", "", ""},
};

// How long the background command took to say it was ready. Not its pid or exit status.
inline constexpr MetricDecl kBackground[] = {
    {"ready_s", "s", "lower"},
};

inline constexpr sv kKind[] = {"kind"};

// Phase records carry no dimension: a sweep's value is in the phase's name (tcp-4), and
// the load's "clients" or "groups" repeats it.
inline constexpr RecordType kGeneralTypes[] = {
    {.type = "phase", .kind = "", .identity = {}, .dimensions = {}, .metrics = {},
     .load_metrics = true},
    {.type = "command", .kind = "exec", .identity = kKind, .dimensions = {}, .metrics = kCommand,
     .entries = kPerfCounterEntries},
    {.type = "command", .kind = "module", .identity = kKind, .dimensions = {}, .metrics = kCommand,
     .entries = kPerfCounterEntries},
    {.type = "background", .kind = "", .identity = {}, .dimensions = {}, .metrics = kBackground},
    // Each phase's metrics over the rounds, aggregated by their agg.
    {.type = "summary", .kind = "", .identity = {}, .dimensions = {}, .metrics = {},
     .derived = true},
    {.type = "kernel", .kind = "", .identity = kKind, .dimensions = {}, .metrics = {}},
    {.type = "header", .kind = "", .identity = {}, .dimensions = {}, .metrics = {}},
    {.type = "warning", .kind = "", .identity = {}, .dimensions = {}, .metrics = {}},
    {.type = "error", .kind = "", .identity = {}, .dimensions = {}, .metrics = {}},
    {.type = "end", .kind = "", .identity = {}, .dimensions = {}, .metrics = {}},
};

// Every description: the general ones, each probe's after the phase's.
inline constexpr auto kRecordTypes = [] {
    std::array<RecordType, std::size(kGeneralTypes) + std::size(probe_catalog::kDecls)> all{};
    size_t n = 0;
    all[n++] = kGeneralTypes[0]; // the phase
    for (const ProbeDecl* probe : probe_catalog::kDecls)
        all[n++] = *probe->record;
    for (size_t i = 1; i < std::size(kGeneralTypes); i++)
        all[n++] = kGeneralTypes[i];
    return all;
}();

constexpr bool declared_anywhere(std::string_view name) {
    for (const RecordType& t : kRecordTypes)
        for (const MetricDecl& m : t.metrics)
            if (m.name == name)
                return true;
    return false;
}

} // namespace record_decls
} // namespace initbench
