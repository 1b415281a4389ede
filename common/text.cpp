#include "common/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace initbench {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        out.push_back(text.substr(0, nl));
        if (nl == std::string_view::npos)
            break;
        text.remove_prefix(nl + 1);
    }
    return out;
}

std::vector<std::string_view> split_on(std::string_view text, char separator) {
    std::vector<std::string_view> out;
    for (size_t start = 0;;) {
        const size_t end = text.find(separator, start);
        out.push_back(text.substr(start, end - start));
        if (end == std::string_view::npos)
            return out;
        start = end + 1;
    }
}

std::vector<std::string_view> split_words(std::string_view text) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i]))
            i++;
        size_t start = i;
        while (i < text.size() && !is_space(text[i]))
            i++;
        if (i > start)
            out.push_back(text.substr(start, i - start));
    }
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (is_space(s.front()) || s.front() == '\0'))
        s.remove_prefix(1);
    while (!s.empty() && (is_space(s.back()) || s.back() == '\0'))
        s.remove_suffix(1);
    return s;
}

std::string format_number(double v, const char* format) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::optional<SignedAmount> parse_signed_amount(std::string_view text) {
    SignedAmount a;
    if (!text.empty() && text.back() == '%') {
        a.percent = true;
        text.remove_suffix(1);
    }
    if (!text.empty() && std::string_view("+-<>").find(text[0]) != std::string_view::npos) {
        a.sign = text[0];
        text.remove_prefix(1);
    }
    // strtod, not from_chars: libc++ 14 has no floating-point from_chars.
    if (text.empty() || is_space(text[0]) || text[0] == '+' || text[0] == '-')
        return std::nullopt;
    const std::string number(text);
    char* end = nullptr;
    a.value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(a.value))
        return std::nullopt;
    return a;
}

size_t utf8_length(std::string_view s, size_t i) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80)
        return 1;
    const size_t n = c >= 0xF0 ? (c <= 0xF4 ? 4 : 0) : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (!n || i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; ++k)
        if ((byte(i + k) & 0xC0) != 0x80)
            return 0;
    const unsigned char next = byte(i + 1); // no overlong forms, surrogates or > U+10FFFF
    if ((c == 0xE0 && next < 0xA0) || (c == 0xED && next >= 0xA0))
        return 0;
    if ((c == 0xF0 && next < 0x90) || (c == 0xF4 && next >= 0x90))
        return 0;
    return n;
}

bool valid_utf8(std::string_view s) {
    for (size_t i = 0, n; i < s.size(); i += n)
        if (!(n = utf8_length(s, i)))
            return false;
    return true;
}

std::string utf8_safe(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8_length(s, i);
        out += n ? s.substr(i, n) : "?";
        i += n ? n : 1;
    }
    return out;
}

std::string number_label(double x) {
    return format_number(x, x == std::floor(x) && std::fabs(x) < 1e15 ? "%.0f" : "%g");
}

std::string to_hex(std::span<const unsigned char> bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char b : bytes) {
        out.push_back(kDigits[b >> 4]);
        out.push_back(kDigits[b & 15]);
    }
    return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t substitute = diagonal + (a[i - 1] != b[j - 1]);
            diagonal = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
        }
    }
    return row[b.size()];
}

std::optional<std::string> closest_name(std::string_view name, const std::vector<std::string>& candidates) {
    const std::string* best = nullptr;
    size_t best_distance = std::numeric_limits<size_t>::max();
    for (const auto& c : candidates)
        if (const size_t d = edit_distance(name, c); d < best_distance) {
            best = &c;
            best_distance = d;
        }
    if (!best || best_distance >= name.size() || (best_distance > 2 && best_distance * 3 > name.size()))
        return std::nullopt;
    return *best;
}

} // namespace initbench
