// The tcp load's declaration, which the host builds too: its name and its keys. Its worker,
// its parameters and its LoadSpec are payload/tcp.cpp.
#pragma once

#include "common/load_decl.h"
#include "common/external_load.h"

namespace initbench {

inline constexpr KeySpec tcp_keys[] = {
    checked_key(
        plain_key("tcp.clients", Kind::list, "1",
                  "tcp load: client/server pairs over loopback; one phase per value: counts, cpus, "
                  "K*cpus, cpus/K, and ... doubling up to the next item"),
        check_count_item),
    uint_key("tcp.msg_size", "64", 1, 1 << 20, "tcp load: bytes per request and per response"),
};

inline constexpr ShownParam tcp_shown[] = {
    {"msg_size", ShownParam::Type::count},
};

inline constexpr LoadDecl tcp_declaration = {"tcp", tcp_keys, tcp_shown};

} // namespace initbench
