// The value a key takes, parsed by its kind (config.h's parse_value): counts and seconds
// in their ranges, an enumeration's choices, a list's items, a flag's words.
#include "common/config.h"
#include "common/text.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace initbench {
namespace {

std::string parse_uint(const KeySpec &spec, std::string_view text, ConfigValue &out) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos)
        return "not a whole number";
    const std::string range = "out of range: must be between " + std::to_string(spec.umin) +
                              " and " + std::to_string(spec.umax);
    uint64_t v = 0;
    for (char c : text) {
        const uint64_t digit = uint64_t(c - '0');
        if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10)
            return range;
        v = v * 10 + digit;
    }
    if (v < spec.umin || v > spec.umax)
        return range;
    out = v;
    return "";
}

// Plain decimals only ("5", "0.5", ".5"): exact to parse by hand, and libc++ 14 has no
// floating-point from_chars. mantissa / 10^n is correctly rounded, so "0.05" == 0.05.
std::string parse_seconds(const KeySpec &spec, std::string_view text, ConfigValue &out) {
    uint64_t mantissa = 0;
    int digits = 0, fraction = -1;
    for (char c : text) {
        if (c == '.' && fraction < 0) {
            fraction = 0;
            continue;
        }
        if (c < '0' || c > '9')
            return "not a number of seconds (like 5 or 0.5)";
        if (++digits > 18)
            return "too many digits";
        mantissa = mantissa * 10 + uint64_t(c - '0');
        if (fraction >= 0)
            ++fraction;
    }
    if (digits == 0)
        return "not a number of seconds (like 5 or 0.5)";
    double scale = 1;
    for (int i = 0; i < fraction; ++i)
        scale *= 10;
    const double v = double(mantissa) / scale;
    if (v < spec.min || v > spec.max)
        return "out of range: must be between " + format_number(spec.min) + " and " +
               format_number(spec.max) + " seconds";
    out = v;
    return "";
}

std::string parse_enum(const KeySpec &spec, std::string_view text, ConfigValue &out) {
    const std::vector<std::string_view> choices = split_on(spec.choices, '|');
    if (std::find(choices.begin(), choices.end(), text) == choices.end())
        return "must be one of: " + join(choices, ", ");
    out = std::string(text);
    return "";
}

std::string parse_list(const KeySpec &spec, std::string_view text, ConfigValue &out) {
    std::vector<std::string> items;
    for (std::string_view piece : text.empty() ? std::vector<std::string_view>{} : split_on(text, ',')) {
        const std::string_view item = trim(piece);
        if (item.empty())
            return "empty item in list";
        std::string why = spec.check ? spec.check(item) : "";
        if (ConfigValue count; why.empty() && spec.umax > 0) // a list of counts
            why = parse_uint(spec, item, count);
        if (!why.empty())
            return std::string(item) + ": " + why;
        items.emplace_back(item);
    }
    out = std::move(items);
    return "";
}

std::string parse_flag(std::string_view text, ConfigValue &out) {
    std::string t(text);
    for (char &c : t)
        c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (t == "1" || t == "yes" || t == "true" || t == "on")
        out = true;
    else if (t == "0" || t == "no" || t == "false" || t == "off")
        out = false;
    else
        return "must be one of: 0, 1, yes, no, true, false, on, off";
    return "";
}

} // namespace

std::string parse_value(const KeySpec &spec, std::string_view text, ConfigValue &out) {
    switch (spec.kind) {
    case Kind::uint:
        return parse_uint(spec, text, out);
    case Kind::seconds:
        return parse_seconds(spec, text, out);
    case Kind::enumeration:
        return parse_enum(spec, text, out);
    case Kind::list:
        return parse_list(spec, text, out);
    case Kind::flag:
        return parse_flag(text, out);
    case Kind::string:
        break;
    }
    if (spec.check && !text.empty())
        if (std::string why = spec.check(text); !why.empty())
            return why;
    out = std::string(text);
    return "";
}

} // namespace initbench
