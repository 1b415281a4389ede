// What the host and the guest know of a built-in load before it runs: its name, what it
// does and what one of its operations is, its configuration keys (with the ones its phase
// record shows in load.params) and its sweep key. Each load declares its own in
// payload/X/load.json, which the build turns into the header payload/X/X_load.h (host and
// guest build it); the key table (config_keys()) and the
// built-in names gather every declaration through the generated load_catalog.h
// (cmake/Catalog.cmake), so that adding a load adds no line to a central table. Its code (worker,
// parameters, LoadSpec X_load) is payload/X/X.cpp.
#pragma once

#include "common/config.h"
#include "common/key_rows.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace initbench {

struct LoadDecl {
    std::string_view name;
    std::string_view op_unit; // what one operation is: "fork+exit+wait", "message", ...
    std::span<const KeySpec> keys = {};
    // A list key whose every value is a phase of its own (tcp.clients), or "".
    std::string_view sweep = "";
    std::string_view help = {}; // what it does, in a line
};

// Whether every key the load shows in its records (KeySpec::shown_as) is of a kind a record
// can show: a count, seconds or one of some choices. A load leaves a count out of its record
// when the key sets it to 0 (off), so a shown count is at least 1.
constexpr bool shows_what_a_record_can(const LoadDecl& decl) {
    for (const KeySpec& key : decl.keys)
        if (!key.shown_as.empty() && key.kind != Kind::uint && key.kind != Kind::seconds &&
            key.kind != Kind::enumeration)
            return false;
    return true;
}

// The load's declaration by name; null for a name no built-in load has.
const LoadDecl* find_load_decl(std::string_view name);

} // namespace initbench
