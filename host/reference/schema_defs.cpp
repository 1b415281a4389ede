// The parts of the results schema (docs/schema/defs.schema.json) that the declarations say,
// generated from them: load_params from the keys each load shows (KeySpec::shown_as)
// (payload/X/load.json); probe_name and each record type's metrics_X from the record
// descriptions (bpf/X/X_probe.h, common/record_decls.h). scripts/schema-defs.py writes them
// into the file; test_schema.py fails when the committed file differs.
#include "host/reference/schema_defs.h"

#include "common/config.h"
#include "common/external_load.h"
#include "common/load_decl.h"
#include "common/record_types.h"
#include "common/text.h"

#include <algorithm>
#include <map>
#include <string>

namespace initbench {
namespace {

// The schema of a parameter that shows `key`: its kind and range. A load leaves a count out
// of its record at 0, so a count's minimum is at least 1.
nlohmann::json property(const KeySpec& key) {
    switch (key.kind) {
    case Kind::uint:
        return {{"type", "integer"}, {"minimum", std::max<uint64_t>(key.umin, 1)}, {"maximum", key.umax}};
    case Kind::seconds:
        return {{"type", "number"}, {"minimum", key.min}, {"maximum", key.max}};
    default: { // Kind::enumeration: the catalog allows no other kind (shows_what_a_record_can)
        nlohmann::json choices = nlohmann::json::array();
        for (std::string_view choice : split_on(key.choices, '|'))
            choices.push_back(std::string(choice));
        return {{"enum", choices}};
    }
    }
}

// Widens `p` to take what `more` takes too: two loads that show a parameter of one name.
void widen(nlohmann::json& p, const nlohmann::json& more) {
    if (p.contains("enum")) {
        for (const auto& value : more["enum"])
            if (std::find(p["enum"].begin(), p["enum"].end(), value) == p["enum"].end())
                p["enum"].push_back(value);
        return;
    }
    p["minimum"] = std::min(p["minimum"], more["minimum"]);
    p["maximum"] = std::max(p["maximum"], more["maximum"]);
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : "; ") + p;
    return out.empty() ? out : out + ".";
}

// A declared metric's schema: a metric object with the declared unit, better and agg ("" for
// the writer's own: any unit; better left to the metric's own enum).
nlohmann::json metric_schema(const MetricDecl& m) {
    nlohmann::json p{{"agg", {{"const", m.agg}}}};
    if (m.unit.empty())
        p["unit"] = {{"$ref", "#/$defs/nonempty_text"}};
    else
        p["unit"] = {{"const", m.unit}};
    if (!m.better.empty())
        p["better"] = {{"const", m.better}};
    return {{"$ref", "#/$defs/metric"}, {"properties", p}};
}

std::string regex_escaped(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

// The pattern a metric with "*" segments stands for: each "*" an entry's name (no '.'), the
// last one of its fields where the declaration lists them.
std::string metric_pattern(const MetricDecl& m) {
    const std::vector<std::string_view> segments = split_on(m.name, '*');
    std::string out = "^";
    for (size_t i = 0; i < segments.size(); i++) {
        out += regex_escaped(segments[i]);
        if (i + 1 == segments.size())
            break;
        if (i + 2 == segments.size() && !m.fields.empty()) {
            std::string alternatives;
            for (std::string_view f : m.fields)
                alternatives += (alternatives.empty() ? "" : "|") + regex_escaped(f);
            out += "(" + alternatives + ")";
        } else {
            out += "[^.]+";
        }
    }
    return out + "$";
}

// The "metrics" object one record type allows: its declared metrics and nothing else.
nlohmann::json metrics_object(const RecordType& t) {
    nlohmann::json named = nlohmann::json::object(), patterns = nlohmann::json::object();
    for (const MetricDecl& m : t.metrics) {
        if (m.name.find('*') == std::string_view::npos)
            named[std::string(m.name)] = metric_schema(m);
        else
            patterns[metric_pattern(m)] = metric_schema(m);
    }
    nlohmann::json o{{"type", "object"}, {"properties", named}, {"additionalProperties", false}};
    if (!patterns.empty())
        o["patternProperties"] = patterns;
    return o;
}

} // namespace

Result<nlohmann::json> load_params_schema() {
    nlohmann::json properties{{"workers", {{"type", "integer"}, {"minimum", 1}}}};
    std::map<std::string, std::vector<std::string>> notes; // a name's per-load descriptions
    std::map<std::string, Kind> kinds;
    for (std::string_view load : builtin_load_names()) {
        const LoadDecl* decl = find_load_decl(load);
        for (const KeySpec& key : decl->keys) {
            if (key.shown_as.empty())
                continue;
            const std::string name(key.shown_as);
            if (auto k = kinds.find(name); k != kinds.end() && k->second != key.kind)
                return Error{name + ": " + std::string(load) + " shows it as another type than an earlier load"};
            kinds[name] = key.kind;
            auto& p = properties[name];
            if (p.is_null())
                p = property(key);
            else
                widen(p, property(key));
            notes[name].push_back(std::string(key.help) + " [" + std::string(key.name) + "]");
        }
    }
    for (const auto& [name, parts] : notes)
        properties[name]["description"] = joined(parts);
    return nlohmann::json{{"type", "object"},
                          {"required", {"workers"}},
                          {"properties", properties},
                          {"additionalProperties", false}};
}

nlohmann::json record_schemas() {
    nlohmann::json out;
    nlohmann::json& probes = out["probe_name"]["enum"];
    // Per type with kinds: each distinct metrics object, and the kinds that have it.
    std::map<std::string, std::vector<std::pair<nlohmann::json, nlohmann::json>>> by_kind;
    for (const RecordType& t : record_types()) {
        if (t.type == "probe")
            probes.push_back(t.kind);
        if (t.metrics.empty() || t.derived)
            continue;
        const std::string type(t.type);
        nlohmann::json metrics{{"properties", {{"metrics", metrics_object(t)}}}};
        if (t.kind.empty()) {
            out["metrics_" + type] = std::move(metrics);
            continue;
        }
        auto& branches = by_kind[type];
        auto same = std::find_if(branches.begin(), branches.end(), [&](const auto& b) { return b.second == metrics; });
        if (same == branches.end())
            branches.emplace_back(nlohmann::json::array({t.kind}), std::move(metrics));
        else
            same->first.push_back(t.kind);
    }
    for (const auto& [type, branches] : by_kind) {
        const std::string field(kind_field(type));
        nlohmann::json& def = out["metrics_" + type];
        def["description"] = "Each " + type + " record's metrics, by its " + field + ": only those its declaration names.";
        for (const auto& [kinds, metrics] : branches)
            def["allOf"].push_back({{"if", {{"properties", {{field, {{"enum", kinds}}}}}, {"required", {field}}}},
                                    {"then", metrics}});
    }
    return out;
}

Result<nlohmann::json> generated_defs() {
    auto params = load_params_schema();
    if (!params)
        return params.error();
    nlohmann::json defs = record_schemas();
    defs["load_params"] = params.value();
    return defs;
}

} // namespace initbench
