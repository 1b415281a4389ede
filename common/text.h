// Small string helpers for reading /proc and /sys text. The guest must not use iostreams:
// Debian's libc++.a was built for glibc, and its ctype tables do not match the musl-mode
// headers (an istream's whitespace skipping crashes).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

// The C locale's isspace, without the locale.
bool is_space(char c);
std::vector<std::string_view> split_lines(std::string_view text);
// Whitespace-separated words.
std::vector<std::string_view> split_words(std::string_view text);
std::string_view trim(std::string_view s);

template <typename List>
std::string join(const List& items, std::string_view sep) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty())
            out += sep;
        out += item;
    }
    return out;
}

// "+5%", "-15", "5%" (and "<5"/">5" for bisect's limits): the number, the sign character
// written ('\0' for none) and whether a '%' ended it. None unless the whole text is that,
// with a finite number.
struct SignedAmount {
    double value = 0;
    char sign = 0;
    bool percent = false;
};
std::optional<SignedAmount> parse_signed_amount(std::string_view text);

// One number as printf's `format` (a single double conversion) writes it: snprintf, not
// <format> (libc++ 14 lacks it) or streams (see above).
std::string format_number(double v, const char* format = "%g");

} // namespace initbench
