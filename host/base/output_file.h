// A file the CLI writes for its user (results, a report page, ab's comparison), written whole
// or not at all: through a temporary file beside it and a rename, so that a reader never sees
// half a file and a failure leaves the old one in place.
#pragma once

#include "common/result.h"

#include <filesystem>
#include <string_view>

namespace initbench {

// Writes `text` to `path`; an error says which file and why ("cannot write r.json.tmp:
// No such file or directory").
Status write_output_file(const std::filesystem::path& path, std::string_view text);

// Whether write_output_file could write `path` now (its directory exists and takes new
// files), checked before an hour of boots that would end by writing it.
Status output_writable(const std::filesystem::path& path);

} // namespace initbench
