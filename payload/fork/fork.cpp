// fork: workers that fork a child which exits at once, and reap it — continuously. One
// operation is one fork + exit + wait, and with fork.spin_us=N also N µs of spinning: a cost
// of known size, so that a benchmark can slow the load by 2 % or 10 % and count how often the
// comparison finds it. Under --clock icount the spin is a fixed number of instructions too.
#include "common/config.h"
#include "payload/core/load.h"
#include "payload/fork/fork_load.h"

#include <cerrno>
#include <cstdint>
#include <ctime>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

struct ForkParams {
    uint64_t spin_ns = 0;
};

uint64_t monotonic_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void spin_for(uint64_t ns) {
    const uint64_t until = monotonic_ns() + ns;
    while (monotonic_ns() < until) {
    }
}

[[noreturn]] void fork_work(const WorkerContext& ctx) {
    const uint64_t spin_ns = ctx.own<ForkParams>().spin_ns;
    ctx.ready();
    for (;;) {
        pid_t pid = fork_retrying(ctx);
        if (pid == 0)
            ::_exit(0);
        int status;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (spin_ns)
            spin_for(spin_ns);
        ctx.count();
    }
}

void fork_configure(const Config& config, LoadParams& p) {
    const uint64_t spin_us = config.uint("fork.spin_us");
    if (spin_us)
        show(p, fork_declaration, {{"fork_spin_us", spin_us}});
    p.own = ForkParams{.spin_ns = spin_us * 1000};
}

uint64_t fork_tasks(const LoadParams& p) {
    return 2 * uint64_t(p.workers);
}

} // namespace

extern const LoadSpec fork_load = {
    .decl = fork_declaration, .tasks = fork_tasks, .configure = fork_configure, .work = fork_work};

} // namespace initbench
