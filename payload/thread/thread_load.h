// The thread load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/thread/thread.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec thread_keys[] = {
    shown_as("threads", uint_key("thread.threads", "32", 1, 100000,
                                 "thread load: threads per worker, created, held and ended "
                                 "together (batch), or the most "
                                 "alive at once (continuous)")),
    shown_as(
        "mode",
        enum_key("thread.mode", "batch", "batch|continuous",
                 "thread load: batch creates, holds and joins thread.threads at a time (stress-ng "
                 "--pthread-max); continuous starts a new thread as soon as the oldest ends")),
};

inline constexpr LoadDecl thread_declaration = {
    .name = "thread", .op_unit = "thread create+exit+join", .keys = thread_keys,
    .help = "worker processes that create and end threads: thread.threads at once (batch), or at "
            "most that many alive (continuous)"};

} // namespace initbench
