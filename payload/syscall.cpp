// syscall: a tight loop of one cheap system call — getppid() by default, the cheapest there
// is: it measures what a probe on the syscall path costs per event
// (scripts/bench-probes.py); `syscall.name=getpgid` is the RCU Tasks Trace experiment's
// producer, whose fentry program churns task storage. One operation is 1024 calls.
#include "common/config.h"
#include "payload/load.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace initbench {
namespace {

struct NamedSyscall {
    std::string_view name;
    long nr;
};
// The choices of the syscall.name key; each takes no argument, or 0 (getpgid: the caller).
constexpr NamedSyscall kSyscalls[] = {
    {"getppid", SYS_getppid}, {"getpgid", SYS_getpgid}, {"getpid", SYS_getpid},
    {"getuid", SYS_getuid},   {"gettid", SYS_gettid},
};

[[noreturn]] void syscall_work(const WorkerContext& ctx) {
    const long nr = ctx.params->syscall_nr;
    ctx.ready();
    for (;;) {
        for (int i = 0; i < 1024; i++)
            ::syscall(nr, 0); // not libc's wrappers: getpid() and the like could be cached
        ctx.count();
    }
}

void syscall_configure(const Config& config, LoadParams& p) {
    const std::string name = config.str("syscall.name");
    for (const auto& s : kSyscalls)
        if (s.name == name)
            p.syscall_nr = s.nr, p.syscall_name = s.name;
}

} // namespace

extern const LoadSpec syscall_load = {
    .name = "syscall",
    .help = "a tight loop of one system call per worker (syscall.name, getppid by default), for probe "
            "overhead per event",
    .op_unit = "1024 system calls",
    .sweep = "",
    .default_workers = online_cpus,
    .unsupported = always_supported,
    .tasks = one_task_per_worker,
    .bytes_per_op = nullptr,
    .configure = syscall_configure,
    .work = syscall_work,
};

} // namespace initbench
