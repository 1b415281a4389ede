// The mmap load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/mmap/mmap.cpp.
#pragma once

#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec mmap_keys[] = {
    shown_as(
        "size_kb",
        uint_key("mmap.size_kb", "1024", 4, 1 << 20,
                 "mmap load: KiB each worker maps, touches page by page and unmaps per operation")),
};

inline constexpr LoadDecl mmap_declaration = {
    .name = "mmap", .op_unit = "map+touch+unmap", .keys = mmap_keys,
    .help = "workers that map mmap.size_kb KiB of anonymous memory, write a byte to each page and "
            "unmap it"};

} // namespace initbench
