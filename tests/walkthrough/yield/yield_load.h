// The walk-through's toy load (tests/walkthrough/): written as docs/hacking.md says a load
// is added, and copied into a scratch tree's payload/yield/ by walkthrough.py.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec yield_keys[] = {
    shown_as("batch", uint_key("yield.batch", "8", 1, 1 << 16,
                               "yield load: sched_yield() calls per operation")),
};

inline constexpr LoadDecl yield_declaration = {
    .name = "yield", .op_unit = "yields", .keys = yield_keys,
    .help = "workers that call sched_yield() yield.batch times per operation"};

} // namespace initbench
