/* The walk-through's toy probe (tests/walkthrough/): written as docs/hacking.md says a probe
 * is added, and copied into a scratch tree's bpf/exits/ by walkthrough.py. It counts the
 * tasks that exited in each phase's window.
 *
 * The probe's declaration: in C, the per-CPU counts its kernel side keeps; in C++, its key,
 * its record's description and its maker's prototype. */
#pragma once

struct exits_cpu {
    unsigned long long exits;
};

#ifdef __cplusplus
#include "bpf/core/probe.h"
#include "common/probe_decl.h"

namespace initbench {

inline constexpr KeySpec exits_keys[] = {
    plain_key("exits", Kind::flag, "0", "count the tasks that exit in each phase's window"),
};

inline constexpr MetricDecl kExitsOwnMetrics[] = {
    {"exits", "tasks", "none", "amean", true},
};
inline constexpr auto kExitsMetrics = with_probe_cost(kExitsOwnMetrics);
inline constexpr RecordType exits_record = probe_record("exits", {.metrics = kExitsMetrics});
inline constexpr ProbeDecl exits_declaration = {&exits_record, exits_keys};

} // namespace initbench
#endif
