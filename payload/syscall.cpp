// syscall: a tight loop of getppid(), the cheapest system call there is: it measures what a
// probe on the syscall path costs per event (scripts/bench-probes.sh). One operation is
// 1024 calls.
#include "payload/load.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace initbench {

[[noreturn]] static void syscall_work(const WorkerContext& ctx) {
    ctx.ready();
    for (;;) {
        for (int i = 0; i < 1024; i++)
            ::syscall(SYS_getppid); // not libc's getppid(): that could be cached one day
        ctx.count();
    }
}

extern const LoadSpec syscall_load = {
    .name = "syscall",
    .help = "a tight getppid() loop per worker, for probe overhead per event",
    .op_unit = "1024 getppid",
    .sweep = "",
    .default_workers = online_cpus,
    .unsupported = always_supported,
    .tasks = one_task_per_worker,
    .bytes_per_op = nullptr,
    .configure = nullptr,
    .work = syscall_work,
};

} // namespace initbench
