// `initbench keys`: every initbench.* key, with its type, range, default and meaning, from
// the keys' own declarations (the general table, each load's, each probe's). With
// --markdown it writes docs/keys.md, which a test keeps equal to what the build makes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace initbench {

// The reference: plain text, or the Markdown page.
std::string key_reference(bool markdown);

void add_keys_command(CLI::App& app);

} // namespace initbench
