// The tcp load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/tcp/tcp.cpp.
#pragma once

#include "common/external_load.h"
#include "common/load_decl.h"

namespace initbench {

inline constexpr KeySpec tcp_keys[] = {
    checked_key(
        plain_key("tcp.clients", Kind::list, "1",
                  "tcp load: client/server pairs over loopback; one phase per value: counts, cpus, "
                  "K*cpus, cpus/K, and ... doubling up to the next item"),
        check_count_item),
    shown_as("msg_size", uint_key("tcp.msg_size", "64", 1, 1 << 20,
                                  "tcp load: bytes per request and per response")),
};

inline constexpr LoadDecl tcp_declaration = {
    .name = "tcp", .op_unit = "request+response", .keys = tcp_keys, .sweep = "tcp.clients",
    .help = "tbench-style client/server pairs doing request/response over loopback TCP"};

} // namespace initbench
