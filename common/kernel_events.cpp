#include "common/kernel_events.h"

namespace initbench {
namespace {

// Most specific first: a kill-init is a panic, a soft lockup says "BUG:". A line is of the
// kind when it holds the needle and, after it, `also`.
struct Pattern {
    std::string_view kind, needle, also = {};
};
constexpr Pattern kPatterns[] = {
    {"kill_init", "Attempted to kill init"},
    {"panic", "Kernel panic - not syncing"},
    {"lockup", "BUG: soft lockup"}, // kernel/watchdog.c's pr_fmt puts "watchdog: " before it
    {"lockup", "BUG: workqueue lockup"},
    {"lockup", "hard LOCKUP"},
    {"stall", "INFO: rcu", "stall"}, // "rcu: INFO: rcu_preempt self-detected stall on CPU"
    {"stall", "detected stall"},     // "rcu: INFO: rcu_tasks detected stalls on tasks:"
    {"stall", "RCU stall"},
    {"hung_task", "blocked for more than"},
    {"oom", "Out of memory:"},
    {"oom", "oom-kill:"},
    {"oops", "Oops:"}, // x86 "Oops: 0000 [#1]", arm64 "Internal error: Oops: 96000004"
    {"oops", "Oops -"},
    {"oops", "general protection fault"},
    {"bug", "BUG:"},
    {"warning", "WARNING:"},
};

} // namespace

std::optional<KernelEventMatch> classify_kernel_line(std::string_view line) {
    for (const Pattern& p : kPatterns) {
        const size_t at = line.find(p.needle);
        if (at == std::string_view::npos)
            continue;
        if (!p.also.empty() && line.find(p.also, at + p.needle.size()) == std::string_view::npos)
            continue;
        return KernelEventMatch{p.kind, at};
    }
    return std::nullopt;
}

} // namespace initbench
