// What the host and the guest know of a built-in load before it runs: its name, what it
// does and what one of its operations is, its configuration keys, its sweep key, and the
// parameters its phase record shows (load.params). Each load declares its own in payload/X/X_load.h (host and guest build
// it); the key table (config_keys()) and the built-in names gather every declaration through
// the generated load_catalog.h (cmake/Catalog.cmake), so that adding a load adds no line to
// a central table. Its code (worker, parameters, LoadSpec X_load) is payload/X/X.cpp.
#pragma once

#include "common/config.h"
#include "common/key_rows.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace initbench {

// One parameter as the load's phase records show it in load.params, beside "workers" (every
// load's). The results schema's load_params is generated from these (`initbench schema`).
struct ShownParam {
    enum class Type { count, seconds, text, choice };
    std::string_view name;
    Type type = Type::count;
    std::string_view choices = {}; // Type::choice: the values, '|' between them
    uint64_t min = 1, max = 0;     // Type::count: its range (max 0: none)
    std::string_view help = {};    // when the name alone does not say it
};

struct LoadDecl {
    std::string_view name;
    std::string_view op_unit; // what one operation is: "fork+exit+wait", "message", ...
    std::span<const KeySpec> keys = {};
    std::span<const ShownParam> shown = {};
    // A list key whose every value is a phase of its own (tcp.clients), or "".
    std::string_view sweep = "";
    std::string_view help = {}; // what it does, in a line
};

// The load's declaration by name; null for a name no built-in load has.
const LoadDecl* find_load_decl(std::string_view name);

} // namespace initbench
