// `initbench keys [--markdown]`: the key reference (host/reference/key_reference.h).
#pragma once

#include <CLI/CLI.hpp>

namespace initbench {

void add_keys_command(CLI::App& app);

} // namespace initbench
