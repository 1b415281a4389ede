// Field access for compare's readers: results documents come from anywhere, so every
// access checks the type and none throws.
#pragma once

#include "common/text.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace initbench::compare_fields {

using nlohmann::json;

inline const json* field(const json& j, const char* key) {
    if (!j.is_object())
        return nullptr;
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

inline std::string str_field(const json& j, const char* key, std::string fallback = "") {
    const json* f = field(j, key);
    return f && f->is_string() ? f->get<std::string>() : fallback;
}

inline std::optional<double> num_field(const json& j, const char* key) {
    const json* f = field(j, key);
    if (f && f->is_number())
        return f->get<double>();
    return std::nullopt;
}

inline const json& obj_field(const json& j, const char* key) {
    static const json empty = json::object();
    const json* f = field(j, key);
    return f && f->is_object() ? *f : empty;
}

// A number as compare writes it in a group's or a bucket's name: whole numbers without a
// fraction, others as %g.
inline std::string number_label(double x) {
    return format_number(x, x == std::floor(x) && std::fabs(x) < 1e15 ? "%.0f" : "%g");
}

} // namespace initbench::compare_fields
