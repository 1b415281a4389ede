// Makers of the key table's rows (common/config.h's KeySpec), one per kind: the general
// table (common/config_keys.cpp) and each load's and probe's declaration (payload/X/X_load.h,
// written from payload/X/load.json; bpf/X/X_probe.h) use them. They are constexpr, so that every
// table is data the compiler lays out, not code that builds it at start-up. One maker per kind
// keeps the rows short (and designated initializers that skip members would trip
// -Wmissing-field-initializers on g++ 12).
#pragma once

#include "common/config.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace initbench {

// A row of any kind without bounds or choices: a string, a list or a flag.
constexpr KeySpec plain_key(std::string_view name, Kind kind, std::string_view def,
                            std::string_view help) {
    KeySpec k;
    k.name = name, k.kind = kind, k.def = def, k.help = help;
    return k;
}
constexpr KeySpec uint_key(std::string_view name, std::string_view def, uint64_t min, uint64_t max,
                           std::string_view help) {
    KeySpec k = plain_key(name, Kind::uint, def, help);
    k.umin = min, k.umax = max;
    return k;
}
constexpr KeySpec seconds_key(std::string_view name, std::string_view def, double min, double max,
                              std::string_view help) {
    KeySpec k = plain_key(name, Kind::seconds, def, help);
    k.min = min, k.max = max;
    return k;
}
// `choices`: the values, '|' between them ("pipe|socket").
constexpr KeySpec enum_key(std::string_view name, std::string_view def, std::string_view choices,
                           std::string_view help) {
    KeySpec k = plain_key(name, Kind::enumeration, def, help);
    k.choices = choices;
    return k;
}
// A list whose every item is a whole number from `min` to `max` (pipe.groups).
constexpr KeySpec count_list_key(std::string_view name, std::string_view def, uint64_t min,
                                 uint64_t max, std::string_view help) {
    KeySpec k = plain_key(name, Kind::list, def, help);
    k.umin = min, k.umax = max;
    return k;
}
// A load's row whose value its phase records show in load.params as `name` (cpu.load as
// cpu_load_pct). The results schema takes its type, range, choices and help from the row.
constexpr KeySpec shown_as(std::string_view name, KeySpec k) {
    k.shown_as = name;
    return k;
}
// A row whose value (or each list item) `check` also examines: why it is refused, or "".
constexpr KeySpec checked_key(KeySpec k, std::string (*check)(std::string_view)) {
    k.check = check;
    return k;
}
// A text without a default that `check` examines (a command, a path, a CPU list).
constexpr KeySpec checked_text_key(std::string_view name, std::string (*check)(std::string_view),
                                   std::string_view help) {
    return checked_key(plain_key(name, Kind::string, "", help), check);
}

} // namespace initbench
