// One console line's pieces, before the log parser (logparse) puts lines together into
// runs: the line cleaned of what a console adds, a safe excerpt of it, LAVA's quoting undone,
// an "IB1" record frame split and its JSON's extent found, a kernel event recognised.
#pragma once

#include "host/results/logparse.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace initbench {

// Drops CR, NUL and ANSI escape sequences.
std::string clean_line(std::string_view in);

// 7-bit printable and at most LogParser::kMaxExcerpt bytes, so reports are safe to print and to dump.
std::string excerpt(std::string_view s);

// LAVA's dispatcher writes every '"' of the target's output as '\\"' before logging it
// (lava_dispatcher/shell.py): dropping the backslash before each quote restores the bytes.
std::string undo_lava_quote_escaping(std::string_view msg);

struct Frame {
    uint64_t seq = 0;
    std::string_view crc, json;
};

// "IB1 <seq> <crc> <json>", text starting at the marker. Seq has no leading zeros and at
// most 18 digits so that it fits; trailing blanks a console may add are ignored.
std::optional<Frame> split_frame(std::string_view text);

// nlohmann's parser is iterative, but copying and dumping a value recurse: refuse depth
// no record of ours reaches, before parsing.
bool too_deep(std::string_view text, int limit = 100);

// One past the bracket that closes the object `text` starts with; npos if it does not close.
size_t object_end(std::string_view text);

// The kernel event (panic, oops, lockup, stall, ...) a line reports, with its message.
std::optional<KernelEvent> classify(std::string_view s);

} // namespace initbench
