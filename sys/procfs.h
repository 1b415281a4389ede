// /proc and /sys read (and a sysctl written) one way for the whole tree: /proc/PID/stat, which
// the kthread probe's CPU ticks and the load runner's count of user tasks both walk; the
// kernel's "KEY VALUE" files; and the task limits a load of thousands needs raised.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace initbench {

struct ProcStat {
    int pid = 0;
    std::string comm;
    char state = 0; // R, S, D, Z (a zombie: ended, not yet reaped), ...
    int ppid = 0;
    int pgrp = 0;
    uint64_t flags = 0;            // PF_* (PF_KTHREAD: a kernel thread)
    uint64_t utime = 0, stime = 0;   // clock ticks
    uint64_t cutime = 0, cstime = 0; // clock ticks of the children it reaped
};

// Parses /proc/PID/stat; the comm may hold spaces and parentheses, so it runs from the first
// '(' to the last ')'.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// /proc/PID/stat of one process; nullopt when it is gone.
std::optional<ProcStat> read_proc_stat(int pid);

// Calls `each` for every process in /proc now; one that exits meanwhile is skipped.
void for_each_process(const std::function<void(const ProcStat&)>& each);

// The number after `key` on the line that starts with it: cpu.stat, memory.events,
// /proc/stat ("processes"), /proc/meminfo ("MemAvailable:") (pure, for the unit tests).
std::optional<uint64_t> keyed_value(std::string_view text, std::string_view key);

// A file of one number (a sysctl, a cgroup file); nullopt when unreadable or not a number.
std::optional<uint64_t> read_uint(const std::string& path);

// Raises kernel.threads-max and kernel.pid_max where they would refuse `tasks` more tasks
// than there are now; says what it changed (an empty object when nothing).
nlohmann::json make_room_for_tasks(uint64_t tasks);

} // namespace initbench
