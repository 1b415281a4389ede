// The first steps of every child PID 1 forks (a payload command, a background command, a
// load's worker, the end shell), before it execs or works. PID 1 blocks every signal, since
// it takes them synchronously, and a child inherits that mask: a child that kept it could not
// be stopped by a signal. Everything here is async-signal-safe, as the child of a threaded
// parent needs.
#pragma once

#include <sys/types.h>

namespace initbench {

struct ChildSetup {
    pid_t pgid = -1;              // the process group to join: 0 a new one of its own, -1 stay
    int in = -1, out = -1, err = -1; // made the child's 0, 1 and 2; -1 leaves that one as it is
    bool die_with_parent = false;    // SIGKILL if the parent ends first
};

// Unblocks every signal, then applies `setup`. Failures are left to what the child does next
// (an exec that fails reports itself).
void enter_child(const ChildSetup& setup);

// How a child's failed execve reaches its parent, as posix_spawn does it: the parent makes a
// pipe with O_CLOEXEC before fork; a successful execve closes the child's end, a failed one
// writes its errno there (exec_failed). The parent closes its copy of the write end, then
// exec_errno reads: 0 when the program runs, else the errno.
[[noreturn]] void exec_failed(int report_fd);
int exec_errno(int report_fd);

} // namespace initbench
