#include "sys/child.h"

#include <cerrno>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace initbench {

void enter_child(const ChildSetup& setup) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (setup.die_with_parent)
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (setup.pgid >= 0)
        ::setpgid(0, setup.pgid);
    const int targets[] = {0, 1, 2};
    const int sources[] = {setup.in, setup.out, setup.err};
    for (int i = 0; i < 3; i++)
        if (sources[i] >= 0)
            ::dup2(sources[i], targets[i]);
}

void exec_failed(int report_fd) {
    const int err = errno;
    (void)!::write(report_fd, &err, sizeof err);
    ::_exit(127);
}

int exec_errno(int report_fd) {
    int err = 0;
    ssize_t n;
    while ((n = ::read(report_fd, &err, sizeof err)) < 0 && errno == EINTR) {
    }
    return n == static_cast<ssize_t>(sizeof err) ? err : 0;
}

} // namespace initbench
