// Small string helpers for reading /proc and /sys text. The guest must not use iostreams:
// Debian's libc++.a was built for glibc, and its ctype tables do not match the musl-mode
// headers (an istream's whitespace skipping crashes).
#pragma once

#include <string_view>
#include <vector>

namespace initbench {

std::vector<std::string_view> split_lines(std::string_view text);
// Whitespace-separated words.
std::vector<std::string_view> split_words(std::string_view text);
std::string_view trim(std::string_view s);

} // namespace initbench
