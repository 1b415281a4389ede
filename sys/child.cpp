#include "sys/child.h"

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

} // namespace initbench
