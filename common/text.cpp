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
