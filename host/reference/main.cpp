// initbench-reference: what `initbench keys` and `initbench schema` print, built from the
// declarations and common/ alone, without the rest of the CLI. The build's `reference` target
// runs it to regenerate docs/keys.md and docs/schema/defs.schema.json (a walk-through that adds
// a unit needs only this, not the whole host CLI).
//
//     initbench-reference keys [--markdown]
//     initbench-reference schema
#include "host/reference/key_reference.h"
#include "host/reference/schema_defs.h"

#include <iostream>
#include <string_view>

int main(int argc, char** argv) {
    using namespace initbench;
    const std::string_view what = argc > 1 ? argv[1] : "";
    const std::string_view flag = argc > 2 ? argv[2] : "";
    if (what == "keys" && argc <= 3 && (flag.empty() || flag == "--markdown")) {
        std::cout << key_reference(flag == "--markdown");
        return 0;
    }
    if (what == "schema" && argc == 2) {
        auto defs = generated_defs();
        if (!defs) {
            std::cerr << "initbench-reference schema: " << defs.error().message() << "\n";
            return 1;
        }
        std::cout << defs.value().dump(2) << "\n";
        return 0;
    }
    std::cerr << "usage: initbench-reference keys [--markdown] | schema\n";
    return 2;
}
