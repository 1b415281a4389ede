// kthread: CPU ticks (utime + stime from /proc/PID/stat) that named kernel threads used in
// each phase — e.g. the RCU Tasks Trace kthread's "ticks per grace period". No BPF: the
// kernel's own accounting is read at the window's edges.
#pragma once

#include "bpf/probe.h"
#include "sys/procfs.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

// NAME matches a kernel thread's comm exactly; "NAME*" matches a prefix.
std::unique_ptr<Probe> make_kthread(const std::vector<std::string>& names);

} // namespace initbench
