#include "init/ending.h"

#include "common/text.h"
#include "sys/child.h"

#include <csignal>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {

EndAction end_action_from(std::string_view name) {
    static constexpr Named<EndAction> kActions[] = {{EndAction::poweroff, "poweroff"}, {EndAction::reboot, "reboot"},
                                                    {EndAction::halt, "halt"}, {EndAction::shell, "shell"}};
    return value_named(kActions, name).value_or(EndAction::poweroff);
}

static void run_shell() {
    pid_t pid = ::fork();
    if (pid == 0) {
        enter_child({});
        ::setsid();
        ::execl("/bin/sh", "sh", "-l", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // PID 1 reaps everything, including the shell's orphans, until the shell is gone.
    while (pid > 0) {
        int status = 0;
        pid_t got = ::waitpid(-1, &status, 0);
        if (got == pid || (got < 0 && errno == ECHILD))
            break;
    }
}

void end_machine(EndAction action) {
    if (action == EndAction::shell)
        run_shell();
    ::sync();
    int how = RB_POWER_OFF;
    if (action == EndAction::reboot)
        how = RB_AUTOBOOT;
    else if (action == EndAction::halt)
        how = RB_HALT_SYSTEM;
    ::reboot(how);
    // Power-off unsupported (some boards): halt is the next best end; never return.
    ::reboot(RB_HALT_SYSTEM);
    for (;;)
        ::pause();
}

} // namespace initbench
