// kthread: CPU ticks (utime + stime from /proc/PID/stat) that named kernel threads used in
// each phase — e.g. the RCU Tasks Trace kthread's "ticks per grace period". No BPF: the
// kernel's own accounting is read at the window's edges.
#pragma once

#include "bpf/probe.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

struct ProcStat {
    int pid = 0;
    std::string comm;
    int ppid = 0;
    uint64_t utime = 0, stime = 0; // clock ticks
};

// Parses /proc/PID/stat; the comm may hold spaces and parentheses, so it runs from the first
// '(' to the last ')'.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// NAME matches a kernel thread's comm exactly; "NAME*" matches a prefix.
std::unique_ptr<Probe> make_kthread(const std::vector<std::string>& names);

} // namespace initbench
