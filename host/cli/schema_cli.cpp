#include "host/cli/schema_cli.h"

#include "host/reference/schema_defs.h"

#include <iostream>

namespace initbench {

void add_schema_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "schema", "The results schema's definitions generated from the declarations (for docs/schema/defs.schema.json)");
    cmd->footer("Exit codes:\n  0  written\n  1  a declaration cannot be written as a schema\n  2  bad command line");
    cmd->callback([] {
        auto defs = generated_defs();
        if (!defs) {
            std::cerr << "initbench schema: " << defs.error().message() << "\n";
            throw CLI::RuntimeError(1);
        }
        std::cout << defs.value().dump(2) << "\n";
    });
}

} // namespace initbench
