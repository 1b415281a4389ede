// fork: workers that fork a child which exits at once, and reap it — continuously. One
// operation is one fork + exit + wait.
#include "payload/core/load.h"
#include "payload/fork/fork_load.h"

#include <cerrno>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {

[[noreturn]] static void fork_work(const WorkerContext& ctx) {
    ctx.ready();
    for (;;) {
        pid_t pid = fork_retrying(ctx);
        if (pid == 0)
            ::_exit(0);
        int status;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        ctx.count();
    }
}

static uint64_t fork_tasks(const LoadParams& p) {
    return 2 * uint64_t(p.workers);
}

extern const LoadSpec fork_load = {
    .decl = fork_declaration, .tasks = fork_tasks, .work = fork_work};

} // namespace initbench
