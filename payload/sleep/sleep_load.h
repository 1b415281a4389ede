// The sleep load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/sleep/sleep.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec sleep_keys[] = {
    shown_as("sleepers", uint_key("sleep.tasks", "1000", 1, 1000000,
                                  "sleep load: tasks that sleep and wake in a loop")),
    shown_as("interval_s", seconds_key("sleep.interval", "0.1", 0.000001, 60,
                                       "sleep load: each task's sleep per loop")),
    shown_as(
        "random_s",
        uint_key(
            "sleep.random", "0", 0, 3600,
            "sleep load: N > 0: each sleep lasts a random whole number of seconds from 0 to N-1, "
            "as the RCU Tasks Trace seed's sleep(rand() % N), instead of sleep.interval")),
    shown_as(
        "mode",
        enum_key("sleep.mode", "thread", "thread|process",
                 "sleep load: the sleepers are threads of the workers, or processes of their own")),
    shown_as("syscall",
             enum_key("sleep.syscall", "none", "none|getppid|getpgid|getpid|getuid|gettid",
                      "sleep load: a system call each sleeper makes when it wakes (the RCU Tasks "
                      "Trace seed's getpgid)")),
};

inline constexpr LoadDecl sleep_declaration = {
    .name = "sleep", .op_unit = "wake-up", .keys = sleep_keys,
    .help = "sleep.tasks threads (or processes: sleep.mode) over the workers that sleep "
            "sleep.interval and wake, in a loop"};

} // namespace initbench
