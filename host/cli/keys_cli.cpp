#include "host/cli/keys_cli.h"

#include "host/reference/key_reference.h"

#include <iostream>
#include <memory>

namespace initbench {

void add_keys_command(CLI::App& app) {
    auto markdown = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("keys", "Every initbench.* key: its type, range, default and meaning");
    cmd->footer("Exit codes:\n  0  written\n  2  bad command line");
    cmd->add_flag("--markdown", *markdown, "As docs/keys.md (Markdown tables, one per load and probe)");
    cmd->callback([markdown] { std::cout << key_reference(*markdown); });
}

} // namespace initbench
