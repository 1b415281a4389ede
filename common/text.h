// Small string helpers for reading /proc and /sys text. The guest must not use iostreams:
// Debian's libc++.a was built for glibc, and its ctype tables do not match the musl-mode
// headers (an istream's whitespace skipping crashes).
#pragma once

#include <algorithm>
#include <charconv>
#include <concepts>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

// The C locale's isspace, without the locale.
bool is_space(char c);
std::vector<std::string_view> split_lines(std::string_view text);
// UTF-8: the command line and a console are arbitrary bytes, and a JSON dump of invalid
// UTF-8 throws. The length of the valid sequence at s[i] (no overlong forms, surrogates or
// code points past U+10FFFF), or 0.
size_t utf8_length(std::string_view s, size_t i);
bool valid_utf8(std::string_view s);
// For echoing input back in an error: invalid bytes become '?'.
std::string utf8_safe(std::string_view s);
// Lowercase hex, two digits a byte in order: build ids, hashes.
std::string to_hex(std::span<const unsigned char> bytes);
// The pieces between the separators, empty ones kept: "a||b" is a, "", b; "" is one empty
// piece. Choices ("pipe|socket"), lists ("1,2,4").
std::vector<std::string_view> split_on(std::string_view text, char separator);
// Whitespace-separated words.
std::vector<std::string_view> split_words(std::string_view text);
std::string_view trim(std::string_view s);
// The fewest one-character edits that turn a into b (Levenshtein).
size_t edit_distance(std::string_view a, std::string_view b);
// The candidate a typo of `name` most likely meant: the nearest by edit distance, when near
// enough (at most 2 edits, or a third of the name) to be worth a "did you mean".
std::optional<std::string> closest_name(std::string_view name, const std::vector<std::string>& candidates);

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

// All of `text` as an integer of type T (a '-' only where T is signed; no space, no rest),
// or none.
template <std::integral T>
std::optional<T> parse_integer(std::string_view text) {
    T v{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return v;
}

// An enum's values and their names, one table for both ways instead of a switch each.
template <typename E>
struct Named {
    E value;
    std::string_view name;
};
// The name of `value` in `table`, or the first entry's name (the table's default).
template <typename E, size_t N>
constexpr std::string_view name_of(const Named<E> (&table)[N], E value) {
    for (const Named<E>& n : table)
        if (n.value == value)
            return n.name;
    return table[0].name;
}
// The value named `name` in `table`, or none.
template <typename E, size_t N>
constexpr std::optional<E> value_named(const Named<E> (&table)[N], std::string_view name) {
    for (const Named<E>& n : table)
        if (n.name == name)
            return n.value;
    return std::nullopt;
}
// Every name in `table` but those of `left_out`, in order: a command line's choices.
template <typename E, size_t N>
std::vector<std::string> names_of(const Named<E> (&table)[N], std::initializer_list<E> left_out = {}) {
    std::vector<std::string> out;
    for (const Named<E>& n : table)
        if (std::find(left_out.begin(), left_out.end(), n.value) == left_out.end())
            out.emplace_back(n.name);
    return out;
}

// One number as printf's `format` (a single double conversion) writes it: snprintf, not
// <format> (libc++ 14 lacks it) or streams (see above).
std::string format_number(double v, const char* format = "%g");
// A number in a name (a group's dimensions, a histogram bucket): whole numbers without a
// fraction, others as %g.
std::string number_label(double x);

} // namespace initbench
