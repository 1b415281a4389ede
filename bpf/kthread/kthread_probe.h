// kthread: CPU ticks (utime + stime from /proc/PID/stat) that named kernel threads used in
// each phase — e.g. the RCU Tasks Trace kthread's "ticks per grace period". No BPF: the
// kernel's own accounting is read at the window's edges.
//
// The probe's declaration, which the host builds too: its key, its record's description and
// its maker (kthread.cpp).
#pragma once

#include "bpf/core/probe.h"
#include "common/probe_decl.h"
#include "sys/procfs.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

inline constexpr KeySpec kthread_keys[] = {plain_key(
    "kthread", Kind::list, "", "kernel threads whose CPU ticks are counted (NAME or PREFIX*)")};

// Not clk_tck (a constant of the kernel's) nor a thread's pid (a name, not a measurement).
inline constexpr MetricDecl kKthreadMetrics[] = {
    {"ticks", "ticks", "lower", "amean", true},
    {"cpu_s", "s", "lower"},
    {"ticks_per_span", "ticks", "lower"},
    {"stime_per_span.avg", "ticks", "lower"}, // the RCU seed's ticks per grace period
    {"threads.*.utime", "ticks", "lower"},
    {"threads.*.stime", "ticks", "lower"},
    {"threads.*.ticks", "ticks", "lower"},
};
inline constexpr EntryName kKthreadEntries[] = {{"threads", "comm"}};
inline constexpr RecordType kthread_record = probe_record("kthread",
    {.metrics = kKthreadMetrics, .entries = kKthreadEntries});
inline constexpr ProbeDecl kthread_declaration = {&kthread_record, kthread_keys};

// NAME matches a kernel thread's comm exactly; "NAME*" matches a prefix.
std::unique_ptr<Probe> make_kthread(const std::vector<std::string>& names);

// kthread's combine (ProbeSpec): with a span probe of some spans in the same phase, each
// kthread result gets ticks_per_span and, per sampling interval, stime_per_span.
void add_ticks_per_span(nlohmann::json& phase_results);

} // namespace initbench
