// The syscall load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/syscall/syscall.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec syscall_keys[] = {
    shown_as("syscall", enum_key("syscall.name", "getppid", "getppid|getpgid|getpid|getuid|gettid",
                                 "syscall load: the system call of the loop")),
};

inline constexpr LoadDecl syscall_declaration = {
    .name = "syscall", .op_unit = "1024 system calls", .keys = syscall_keys,
    .help = "a tight loop of one system call per worker (syscall.name, getppid by default), for "
            "probe overhead per event"};

} // namespace initbench
