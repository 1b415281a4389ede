// The kernel's reports that a run must not hide (a panic, an oops, a BUG, a warning, a lockup,
// a stall, an OOM kill, a hung task): one vocabulary for the init, which reads /dev/kmsg
// during the run, and the host, which reads the console log, so that a kind means the same
// in a kernel record and in the results' log section.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace initbench {

// Every kind, as records and results name it.
inline constexpr std::string_view kKernelEventKinds[] = {"kill_init", "panic", "lockup", "stall", "hung_task",
                                                         "oom",       "oops",  "bug",    "warning"};

struct KernelEventMatch {
    std::string_view kind;
    size_t at = 0; // where its words begin in the line ("BUG: ..." after a timestamp or "watchdog: ")
};

// The kind of a kernel message or console line, or none for an ordinary one.
std::optional<KernelEventMatch> classify_kernel_line(std::string_view line);

} // namespace initbench
