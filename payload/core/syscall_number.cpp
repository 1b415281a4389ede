// The system calls the loads may make by name (syscall.name, sleep.syscall): one table for
// the loads that share it, in the framework rather than in either load.
#include "payload/core/load.h"

#include <sys/syscall.h>

namespace initbench {

long syscall_number(std::string_view name) {
    // The choices of the syscall.name and sleep.syscall keys; each takes no argument, or 0
    // (getpgid: the caller's).
    static constexpr struct {
        std::string_view name;
        long nr;
    } known[] = {
        {"getppid", SYS_getppid}, {"getpgid", SYS_getpgid}, {"getpid", SYS_getpid},
        {"getuid", SYS_getuid},   {"gettid", SYS_gettid},
    };
    for (const auto& s : known)
        if (s.name == name)
            return s.nr;
    return -1;
}

} // namespace initbench
