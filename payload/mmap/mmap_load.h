// The mmap load's declaration, which the host builds too: its name and its keys. Its worker,
// its parameters and its LoadSpec are payload/mmap.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec mmap_keys[] = {
    uint_key("mmap.size_kb", "1024", 4, 1 << 20,
             "mmap load: KiB each worker maps, touches page by page and unmaps per operation"),
};

inline constexpr ShownParam mmap_shown[] = {
    {"size_kb", ShownParam::Type::count, {}, 4, 0, "mmap: KiB mapped, touched page by page and unmapped per operation"},
};

inline constexpr LoadDecl mmap_declaration = {"mmap", mmap_keys, mmap_shown};

} // namespace initbench
