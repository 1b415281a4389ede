// Field access for JSON that came from anywhere (a console log, a results file): every
// access checks the type and none throws.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace initbench {

inline const nlohmann::json* json_field(const nlohmann::json& j, const char* key) {
    if (!j.is_object())
        return nullptr;
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

inline std::string json_str(const nlohmann::json& j, const char* key, std::string fallback = "") {
    const nlohmann::json* f = json_field(j, key);
    return f && f->is_string() ? f->get<std::string>() : fallback;
}

inline std::optional<double> json_num(const nlohmann::json& j, const char* key) {
    const nlohmann::json* f = json_field(j, key);
    if (f && f->is_number())
        return f->get<double>();
    return std::nullopt;
}

// An empty object when the field is missing or not an object.
inline const nlohmann::json& json_obj(const nlohmann::json& j, const char* key) {
    static const nlohmann::json empty = nlohmann::json::object();
    const nlohmann::json* f = json_field(j, key);
    return f && f->is_object() ? *f : empty;
}

} // namespace initbench
