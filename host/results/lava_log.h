// One line of a LAVA log: `- {"dt": ..., "lvl": "target", "msg": "..."}` as LAVA archives it,
// or the same without "- " as lava-run prints it. The line is a YAML flow mapping; libyaml
// reads it, escapes and all.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace initbench {

struct LavaLine {
    std::string lvl;
    std::optional<std::string> msg; // absent when the line is cut before the message ends
};

// nullopt when the line is not a LAVA log entry (then it is plain console text). Keys before
// a value that does not parse still count, so a line cut short keeps its level.
std::optional<LavaLine> parse_lava_line(std::string_view line);

} // namespace initbench
