// The thread load's declaration, which the host builds too: its name and its keys. Its worker,
// its parameters and its LoadSpec are payload/thread.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec thread_keys[] = {
    uint_key(
        "thread.threads", "32", 1, 100000,
        "thread load: threads per worker, created, held and ended together (batch), or the most "
        "alive at once (continuous)"),
    enum_key("thread.mode", "batch", "batch|continuous",
             "thread load: batch creates, holds and joins thread.threads at a time (stress-ng "
             "--pthread-max); continuous starts a new thread as soon as the oldest ends"),
};

inline constexpr ShownParam thread_shown[] = {
    {"threads", ShownParam::Type::count},
    {"mode", ShownParam::Type::choice, "batch|continuous"},
};

inline constexpr LoadDecl thread_declaration = {"thread", thread_keys, thread_shown};

} // namespace initbench
