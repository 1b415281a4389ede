/* floor: the least any probe on a hook costs, an empty program there: at a function's entry
 * and return (funclat's hooks), at its entry alone (span's, one per function), or on a raw
 * tracepoint (wakeups' tp_btf/sched_wakeup). A phase with floor=F beside one with funclat=F
 * shows what funclat's own work adds to each call (scripts/bench-probes.py's floor rows). It
 * measures nothing itself: its record is how it attached and its cost.
 *
 * The probe's declaration, which the host builds too (floor.bpf.c and floor.cpp are its
 * kernel side and its loader). */
#pragma once

#ifdef __cplusplus
#include "bpf/core/probe.h"
#include "common/probe_decl.h"

#include <string>

namespace initbench {

inline constexpr KeySpec floor_keys[] = {
    plain_key("floor", Kind::list, "",
              "empty BPF programs, what any probe there costs at least (in the record's cost): FUNCTION "
              "at a kernel function's entry and return, entry:FUNCTION at its entry alone (attach "
              "chooses fentry/fexit or kprobes), tp_btf:NAME on a raw tracepoint"),
};

inline constexpr std::string_view kFloorIdentity[] = {"probe", "function"};
inline constexpr RecordType floor_record = probe_record("floor",
    {.metrics = kProbeCostMetrics, .identity = kFloorIdentity});
inline constexpr ProbeDecl floor_declaration = {&floor_record, floor_keys};

std::unique_ptr<Probe> make_floor(const std::string& function, const std::string& mode);

} // namespace initbench
#endif
