// Field access for compare's readers (common/json_fields.h under compare's names), and how
// compare writes a number in a name.
#pragma once

#include "common/json_fields.h"
#include "common/text.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace initbench::compare_fields {

using nlohmann::json;

inline const json* field(const json& j, const char* key) { return json_field(j, key); }
inline std::string str_field(const json& j, const char* key, std::string fallback = "") {
    return json_str(j, key, std::move(fallback));
}
inline std::optional<double> num_field(const json& j, const char* key) { return json_num(j, key); }
inline const json& obj_field(const json& j, const char* key) { return json_obj(j, key); }

// A number as compare writes it in a group's or a bucket's name: whole numbers without a
// fraction, others as %g.
inline std::string number_label(double x) {
    return format_number(x, x == std::floor(x) && std::fabs(x) < 1e15 ? "%.0f" : "%g");
}

} // namespace initbench::compare_fields
