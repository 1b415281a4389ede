// What the host and the guest know of a built-in load before it runs: its name and its
// configuration keys. Each load declares its own in payload/X/X_load.h (host and guest build
// it); the key table (config_keys()) and the built-in names gather every declaration through
// the generated load_catalog.h (cmake/Catalog.cmake), so that adding a load adds no line to
// a central table. Its code (worker, parameters, LoadSpec X_load) is payload/X/X.cpp.
#pragma once

#include "common/config.h"
#include "common/key_rows.h"

#include <span>
#include <string_view>

namespace initbench {

struct LoadDecl {
    std::string_view name;
    std::span<const KeySpec> keys;
};

} // namespace initbench
