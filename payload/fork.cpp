// fork: workers that fork a child which exits at once, and reap it — continuously. One
// operation is one fork + exit + wait.
#include "payload/load.h"

#include <cerrno>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {

[[noreturn]] static void fork_work(const WorkerContext& ctx) {
    for (;;) {
        pid_t pid = ::fork();
        if (pid == 0)
            ::_exit(0);
        if (pid < 0) {
            ::usleep(1000); // at the task limit: back off, the framework counts what succeeded
            continue;
        }
        int status;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        ctx.count();
    }
}

extern const LoadSpec fork_load = {
    .name = "fork",
    .help = "workers that fork a child which exits immediately, and reap it",
    .op_unit = "fork+exit+wait",
    .default_workers = online_cpus,
    .unsupported = always_supported,
    .work = fork_work,
};

} // namespace initbench
