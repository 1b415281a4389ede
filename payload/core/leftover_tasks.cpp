#include "payload/core/leftover_tasks.h"

#include "common/text.h"
#include "sys/procfs.h"
#include "sys/sys.h"

#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

constexpr uint64_t kPfKthread = 0x00200000; // PF_KTHREAD, include/linux/sched.h

// A user task a phase may have left: not PID 1, not the init itself, not a kernel thread,
// not of the background payload's group.
bool is_leftover(const ProcStat& st, pid_t self, pid_t except_group) {
    if (st.pid == 1 || st.pid == self || (st.flags & kPfKthread))
        return false;
    return except_group <= 0 || st.pgrp != except_group;
}

const char* state_name(char state) {
    switch (state) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "in uninterruptible sleep";
    case 'Z': return "zombies";
    case 'T': return "stopped";
    case 't': return "traced";
    default: return "in state";
    }
}

// Where a task waits in the kernel: the first frame of /proc/PID/stack (root only) that is
// not the scheduler's own, e.g. "percpu_rwsem_wait"; else its wchan. None for a running task
// or a zombie, which have no stack to walk.
std::optional<std::string> waits_in(pid_t pid) {
    const std::string dir = "/proc/" + std::to_string(pid);
    if (auto stack = read_file(dir + "/stack", 16384)) {
        for (std::string_view line : split_lines(stack.value())) {
            // "[<0>] percpu_rwsem_wait+0x116/0x140"
            const size_t start = line.find("] ");
            if (start == std::string_view::npos)
                continue;
            std::string_view frame = line.substr(start + 2);
            frame = frame.substr(0, frame.find('+'));
            if (!frame.starts_with("__schedule") && !frame.starts_with("schedule") &&
                !frame.starts_with("io_schedule") && !frame.starts_with("preempt_schedule"))
                return std::string(frame);
        }
    }
    auto wchan = read_file(dir + "/wchan", 256);
    if (wchan && !trim(wchan.value()).empty() && trim(wchan.value()) != "0")
        return std::string(trim(wchan.value()));
    return std::nullopt;
}

} // namespace

unsigned count_user_tasks(pid_t except_group) {
    unsigned n = 0;
    const pid_t self = ::getpid();
    for_each_process([&](const ProcStat& st) { n += is_leftover(st, self, except_group); });
    return n;
}

std::string describe_leftovers(const LeftoverTasks& left) {
    std::string out;
    for (const auto& [state, n] : left.states) {
        if (!out.empty())
            out += ", ";
        out += std::to_string(n) + " " + state_name(state) + " (" + std::string(1, state) + ")";
        if (auto it = left.waits_in.find(state); it != left.waits_in.end())
            out += " in " + it->second;
    }
    return out;
}

LeftoverTasks settle_user_tasks(pid_t except_group, double deadline) {
    const bool init = ::getpid() == 1; // orphans are someone else's outside the guest
    const pid_t self = ::getpid();
    for (;;) {
        LeftoverTasks left;
        std::map<char, pid_t> example;
        for_each_process([&](const ProcStat& st) {
            if (!is_leftover(st, self, except_group))
                return;
            if (init && st.ppid == 1 && st.state == 'Z' && ::waitpid(st.pid, nullptr, WNOHANG) == st.pid)
                return;
            left.count++;
            left.states[st.state]++;
            example.emplace(st.state, st.pid);
        });
        if (left.count == 0 || monotonic_seconds() >= deadline) {
            for (const auto& [state, pid] : example)
                if (auto where = waits_in(pid))
                    left.waits_in[state] = *where;
            return left;
        }
        ::usleep(10000);
    }
}

} // namespace initbench
