#pragma once

#include <string>

namespace initbench {

// SHA-256 of a file's bytes as lowercase hex. Throws std::runtime_error if unreadable.
std::string sha256_file(const std::string& path);

} // namespace initbench
