/* floor: the least any fentry/fexit (or kprobe/kretprobe) probe on a function costs, an empty
 * program at its entry and one at its return. A phase with floor=F beside one with
 * funclat=F shows what funclat's own work adds to each call (scripts/bench-probes.py's
 * floor row). It measures nothing itself: its record is how it attached and its cost.
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
              "kernel functions to hook with an empty entry and return program (attach chooses "
              "fentry/fexit or kprobes): what any probe there costs at least, in the record's cost"),
};

inline constexpr std::string_view kFloorIdentity[] = {"probe", "function"};
inline constexpr RecordType floor_record = probe_record("floor",
    {.metrics = kProbeCostMetrics, .identity = kFloorIdentity});
inline constexpr ProbeDecl floor_declaration = {&floor_record, floor_keys};

std::unique_ptr<Probe> make_floor(const std::string& function, const std::string& mode);

} // namespace initbench
#endif
