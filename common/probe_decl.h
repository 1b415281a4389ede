// What the host and the guest know of a probe before it runs: its name, its configuration
// keys and its record's description. Each probe declares its own in bpf/X/X_probe.h (host
// and guest build it, no libbpf); the key table (config_keys()) and the record
// descriptions (record_types()) gather every declaration through the generated catalog
// (cmake/Catalog.cmake), so that adding a probe adds no line to a central table.
#pragma once

#include "common/config.h"
#include "common/key_rows.h"
#include "common/record_description.h"

#include <span>
#include <string_view>

namespace initbench {

struct ProbeDecl {
    std::string_view name;
    const RecordType* record;
    std::span<const KeySpec> keys;
};

} // namespace initbench
