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
// load's): the value of one of the load's own keys, under the record's name for it. Its type,
// range, choices and description are that key's, written once; the results schema's
// load_params is generated from them (`initbench schema`). A load leaves a count out of its
// record when the key sets it to 0 (off), so a shown count is at least 1.
struct ShownParam {
    std::string_view name;
    std::string_view key; // one of LoadDecl::keys (the catalog checks it when it compiles)
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

// The key a shown parameter shows: the one of decl.keys it names, or null.
constexpr const KeySpec* shown_key(const LoadDecl& decl, const ShownParam& shown) {
    for (const KeySpec& key : decl.keys)
        if (key.name == shown.key)
            return &key;
    return nullptr;
}

// Whether every parameter the load shows is one of its keys of a kind a record can show
// (a count, seconds or one of some choices).
constexpr bool shows_its_own_keys(const LoadDecl& decl) {
    for (const ShownParam& shown : decl.shown) {
        const KeySpec* key = shown_key(decl, shown);
        if (!key || (key->kind != Kind::uint && key->kind != Kind::seconds && key->kind != Kind::enumeration))
            return false;
    }
    return true;
}

// The load's declaration by name; null for a name no built-in load has.
const LoadDecl* find_load_decl(std::string_view name);

} // namespace initbench
