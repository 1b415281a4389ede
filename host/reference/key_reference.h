// The key reference: every initbench.* key, with its type, range, default and meaning, from
// the keys' own declarations (the general table, each load's, each probe's). As Markdown it is
// docs/keys.md, which a test keeps equal to what the build makes.
#pragma once

#include <string>

namespace initbench {

// The reference: plain text, or the Markdown page.
std::string key_reference(bool markdown);

} // namespace initbench
