// Task handling shared by the loads: small-stack threads, forks that back off at the task
// limit, and a worker that watches over its own processes.
#include "payload/core/load.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {

int start_thread(void* (*fn)(void*), void* arg, size_t stack_bytes, pthread_t* id) {
    pthread_attr_t attr;
    if (int err = ::pthread_attr_init(&attr))
        return err;
    // glibc's minimum grows with its static TLS; musl's is 2 KiB.
    const long min = ::sysconf(_SC_THREAD_STACK_MIN);
    ::pthread_attr_setstacksize(&attr, std::max<size_t>(stack_bytes, min > 0 ? size_t(min) : 0));
    int err = ::pthread_create(id, &attr, fn, arg);
    ::pthread_attr_destroy(&attr);
    return err;
}

int fork_retrying(const WorkerContext& ctx) {
    for (;;) {
        pid_t pid = ::fork();
        if (pid >= 0)
            return pid;
        ctx.failed();
        ::usleep(1000); // at the task limit: another task's exit makes room
    }
}

void die_with_parent(pid_t parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) // the parent died before the request
        ::_exit(0);
}

static long futex(std::atomic<uint32_t>& word, int op, uint32_t val) {
    return ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), op, val, nullptr, nullptr, 0);
}

void wait_for_gate(std::atomic<uint32_t>& gate) {
    while (gate.load(std::memory_order_acquire) == 0)
        futex(gate, FUTEX_WAIT, 0);
}

void open_gate(std::atomic<uint32_t>& gate) {
    gate.store(1, std::memory_order_release);
    futex(gate, FUTEX_WAKE, INT_MAX);
}

[[noreturn]] void supervise_children() {
    int status = 0;
    pid_t pid;
    while ((pid = ::wait(&status)) < 0 && errno == EINTR) {
    }
    if (pid < 0)
        ::_exit(0); // no task left to watch
    // The other tasks die with this worker (PR_SET_PDEATHSIG); the status tells the loss.
    ::_exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
}

} // namespace initbench
