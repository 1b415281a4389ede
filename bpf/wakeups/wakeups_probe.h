/* wakeups: how many wake-ups, and how many distinct threads, processes and mms were woken
 * per phase (the mm_cid thread's @threads/@processes). tasks "user": only tasks with an mm,
 * from fentry/try_to_wake_up as the mm_cid seed counted them; "all": every sched_wakeup.
 *
 * The probe's declaration, which the host builds too: in C, what its kernel side
 * (wakeups.bpf.c, wakeups_btf.bpf.c) counts; in C++, its keys, its record's description and
 * its maker (wakeups.cpp). */
#pragma once

#define WAKEUPS_MAX_KEYS 65536 /* distinct threads/processes/mms per phase */

struct wakeup_counts {
    unsigned long long wakeups; /* every event counted (sched_wakeup, or try_to_wake_up call) */
    unsigned long long dropped; /* distinct keys that did not fit in the maps */
};

#ifdef __cplusplus
#include "bpf/core/probe.h"
#include "common/probe_decl.h"

#include <string>

namespace initbench {

inline constexpr KeySpec wakeups_keys[] = {
    plain_key("wakeups", Kind::flag, "0", "count distinct threads, processes and mms woken"),
    enum_key(
        "wakeups.tasks", "all", "all|user",
        "wakeups: every woken task, or only user tasks (with an mm) from fentry/try_to_wake_up "
        "as the mm_cid seed counted them"),
};

// The mm_cid experiment's figures: distinct tasks woken, and the wake-ups.
inline constexpr MetricDecl kWakeupsOwnMetrics[] = {
    {"threads", "threads", "lower", "amean", true},
    {"processes", "processes", "lower", "amean", true},
    {"mms", "mms", "lower", "amean", true},
    {"wakeups", "wake-ups", "lower", "amean", true},
    {"dropped", "wake-ups", "lower"},
};
inline constexpr auto kWakeupsMetrics = with_probe_cost(kWakeupsOwnMetrics);
inline constexpr RecordType wakeups_record = probe_record("wakeups", {.metrics = kWakeupsMetrics});
inline constexpr ProbeDecl wakeups_declaration = {&wakeups_record, wakeups_keys};

std::unique_ptr<Probe> make_wakeups(const std::string& tasks);

} // namespace initbench
#endif
