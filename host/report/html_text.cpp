#include "host/report/html_text.h"

#include "common/text.h"

#include <cmath>
#include <cstdlib>

namespace initbench::report {

using json = nlohmann::json;

namespace {

const char* const kColours[] = {"#1f6fb4", "#d1495b", "#2a9d5c", "#8e6cc0", "#e08a1e", "#4a4a4a"};

} // namespace

std::string colour(size_t side) {
    return kColours[side % (sizeof kColours / sizeof *kColours)];
}

std::string esc(const std::string& s) {
    std::string out;
    for (char c : s)
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    return out;
}

std::string num(double x) {
    const double a = std::fabs(x);
    if (x == std::floor(x) && a < 1e7)
        return format_number(x, "%.0f");
    if (a >= 1e5 || (a < 0.01 && a > 0))
        return format_number(x, "%.4g");
    return format_number(x, "%.2f");
}

std::string str(const json& j, const char* key) {
    if (!j.is_object())
        return "";
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return "";
    return it->is_string() ? it->get<std::string>() : it->dump();
}

const json& at(const json& j, const char* key) {
    static const json null;
    if (!j.is_object())
        return null;
    auto it = j.find(key);
    return it == j.end() ? null : *it;
}

const json& header_of(const RunDoc& f) {
    static const json null;
    for (const auto& r : at(f.doc, "records"))
        if (str(r, "type") == "header")
            return r;
    return null;
}

std::string experiment_text(const json& config) {
    if (std::string d = str(config, "description"); !d.empty())
        return d;
    std::string out;
    const json& sources = at(config, "sources");
    for (const auto& [key, value] : at(config, "values").items()) {
        if (str(sources, key.c_str()) == "default" || str(sources, key.c_str()).empty())
            continue;
        std::string text;
        if (value.is_array())
            for (const auto& v : value)
                text += (text.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
        else
            text = value.is_string() ? value.get<std::string>() : value.dump();
        out += (out.empty() ? "" : " ") + key + "=" + text;
    }
    return out;
}

std::string short_hash(const std::string& h) {
    return h.size() > 16 ? h.substr(0, 12) + "…" : h;
}

std::string bucket_label(const std::string& label, const std::string& unit) {
    char* end = nullptr;
    double v = std::strtod(label.c_str(), &end);
    if (label.empty() || *end || unit != "ns")
        return label;
    if (v >= 1e9)
        return format_number(v / 1e9, "%.3g s");
    if (v >= 1e6)
        return format_number(v / 1e6, "%.3g ms");
    if (v >= 1e3)
        return format_number(v / 1e3, "%.3g µs");
    return format_number(v, "%.0f ns");
}

} // namespace initbench::report
