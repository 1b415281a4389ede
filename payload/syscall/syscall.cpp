// syscall: a tight loop of one cheap system call — getppid() by default, the cheapest there
// is: it measures what a probe on the syscall path costs per event
// (scripts/bench-probes.py); `syscall.name=getpgid` is the RCU Tasks Trace experiment's
// producer, whose fentry program churns task storage. One operation is 1024 calls.
#include "common/config.h"
#include "payload/core/load.h"
#include "payload/syscall/syscall_load.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace initbench {
namespace {

struct SyscallParams {
    long nr = -1; // the system call of the loop
};

[[noreturn]] void syscall_work(const WorkerContext& ctx) {
    const long nr = ctx.own<SyscallParams>().nr;
    ctx.ready();
    for (;;) {
        for (int i = 0; i < 1024; i++)
            ::syscall(nr, 0); // not libc's wrappers: getpid() and the like could be cached
        ctx.count();
    }
}

void syscall_configure(const Config& config, LoadParams& p) {
    const std::string name = config.str("syscall.name");
    show(p, syscall_declaration, {{"syscall", name}});
    p.own = SyscallParams{.nr = syscall_number(name)};
}

} // namespace

extern const LoadSpec syscall_load = {
    .decl = syscall_declaration, .configure = syscall_configure, .work = syscall_work};

} // namespace initbench
