// The results schema's definitions that follow from the declarations (docs/schema/
// defs.schema.json; scripts/schema-defs.py writes them there).
#pragma once

#include "common/result.h"

#include <nlohmann/json.hpp>

namespace initbench {

// docs/schema/defs.schema.json's load_params: "workers" and every built-in load's shown
// parameters (a name several loads show: one property, its values and notes joined).
Result<nlohmann::json> load_params_schema();

// probe_name (every declared probe), and metrics_X for each record type X with metrics: its
// "metrics" object as the declarations allow it, chosen by kind where X has kinds.
nlohmann::json record_schemas();

// All of the above, by name.
Result<nlohmann::json> generated_defs();

} // namespace initbench
