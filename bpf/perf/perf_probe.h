// perf: perf_event_open counters as perf stat uses them, per phase on the load's tasks (which
// inherit them from init) or on every CPU. No BPF. The same counters count initbench.cmd and
// initbench.module runs (init/commands), whose records share the "counters" entries.
//
// The probe's declaration, which the host builds too: its keys, its record's description and
// its maker (perf.cpp). The counters themselves are perf_counters.h.
#pragma once

#include "common/perf_events.h"
#include "common/probe_decl.h"

#include <string_view>

namespace initbench {

inline constexpr KeySpec perf_keys[] = {
    checked_key(plain_key("perf", Kind::list, "",
                          "perf counters: default (perf stat's set) and/or event names"),
                check_perf_item),
    enum_key("perf.scope", "task", "task|system",
             "task: the load's or command's tasks; system: every online CPU, per CPU"),
};

// A perf event's count, and the figure perf stat prints beside it (its unit and direction
// are the event's: "insn per cycle", "% of all branches"). Not running_pct: how long the
// counter shared the PMU, not what it counted.
inline constexpr MetricDecl kPerfMetrics[] = {
    {"elapsed_s", "s", "lower"},
    {"counters.*.value", "", "lower"},
    {"counters.*.derived.value", "", ""},
};
inline constexpr EntryName kPerfCounterEntries[] = {{"counters", "event"}};
inline constexpr RecordType perf_record = probe_record("perf",
    {.metrics = kPerfMetrics, .entries = kPerfCounterEntries});
inline constexpr ProbeDecl perf_declaration = {&perf_record, perf_keys};

} // namespace initbench
