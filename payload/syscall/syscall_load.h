// The syscall load's declaration, which the host builds too: its name and its keys. Its worker,
// its parameters and its LoadSpec are payload/syscall.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec syscall_keys[] = {
    enum_key("syscall.name", "getppid", "getppid|getpgid|getpid|getuid|gettid",
             "syscall load: the system call of the loop"),
};

inline constexpr ShownParam syscall_shown[] = {
    {"syscall", ShownParam::Type::text},
};

inline constexpr LoadDecl syscall_declaration = {"syscall", syscall_keys, syscall_shown};

} // namespace initbench
