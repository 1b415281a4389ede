// The pipe load's declaration, which the host builds too: its name, help and operation, its
// keys and what its records show. Its worker and its LoadSpec are payload/pipe/pipe.cpp.
#pragma once

#include "common/load_decl.h"
#include "common/text.h"

namespace initbench {

inline constexpr KeySpec pipe_keys[] = {
    checked_key(plain_key("pipe.groups", Kind::list, "1",
                          "pipe load: groups of senders and receivers; one phase per value"),
                [](std::string_view item) -> std::string {
                    const auto n = parse_integer<unsigned>(item);
                    return n && *n >= 1 && *n <= 1024 ? "" : "must be a count from 1 to 1024";
                }),
    shown_as("fds", uint_key("pipe.fds", "20", 1, 256,
                             "pipe load: senders, and as many receivers, per group")),
    shown_as("msg_size",
             uint_key("pipe.msg_size", "100", 1, 65536, "pipe load: bytes per message")),
    shown_as("mode", enum_key("pipe.mode", "pipe", "pipe|socket",
                              "pipe load: pipes or unix stream sockets")),
};

inline constexpr LoadDecl pipe_declaration = {
    .name = "pipe", .op_unit = "message", .keys = pipe_keys, .sweep = "pipe.groups",
    .help = "hackbench-style groups: pipe.fds senders write messages to as many receivers"};

} // namespace initbench
