// `initbench schema`: the parts of the results schema (docs/schema/defs.schema.json) that the
// declarations say, generated from them: load_params from each load's shown parameters
// (payload/X/X_load.h). scripts/schema-defs.py writes them into the file; test_schema.py
// fails when the committed file differs.
#include "host/cli/schema_cli.h"

#include "common/config.h"
#include "common/external_load.h"
#include "common/load_decl.h"
#include "common/text.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <string>

namespace initbench {
namespace {

nlohmann::json property(const ShownParam& d) {
    switch (d.type) {
    case ShownParam::Type::count: {
        nlohmann::json p{{"type", "integer"}, {"minimum", d.min}};
        if (d.max)
            p["maximum"] = d.max;
        return p;
    }
    case ShownParam::Type::seconds:
        return {{"type", "number"}, {"exclusiveMinimum", 0}};
    case ShownParam::Type::text:
        return {{"$ref", "#/$defs/nonempty_text"}};
    case ShownParam::Type::choice:
        return {{"enum", nlohmann::json::array()}};
    }
    return {};
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : "; ") + p;
    return out.empty() ? out : out + ".";
}

} // namespace

Result<nlohmann::json> load_params_schema() {
    nlohmann::json properties{{"workers", {{"type", "integer"}, {"minimum", 1}}}};
    std::map<std::string, std::vector<std::string>> notes; // a name's per-load descriptions
    std::map<std::string, ShownParam::Type> types;
    for (std::string_view load : builtin_load_names()) {
        const LoadDecl* decl = find_load_decl(load);
        for (const ShownParam& d : decl->shown) {
            const std::string name(d.name);
            if (auto t = types.find(name); t != types.end() && t->second != d.type)
                return Error{name + ": " + std::string(load) + " shows it as another type than an earlier load"};
            types[name] = d.type;
            auto& p = properties[name];
            if (p.is_null())
                p = property(d);
            if (d.type == ShownParam::Type::choice) {
                for (std::string_view choice : split_on(d.choices, '|')) {
                    const std::string value(choice);
                    if (std::find(p["enum"].begin(), p["enum"].end(), value) == p["enum"].end())
                        p["enum"].push_back(value);
                }
                notes[name].push_back(std::string(load) + ": " + std::string(d.choices));
            } else if (!d.help.empty()) {
                notes[name].push_back(std::string(d.help));
            }
        }
    }
    for (const auto& [name, parts] : notes)
        properties[name]["description"] = joined(parts);
    return nlohmann::json{{"type", "object"},
                          {"required", {"workers"}},
                          {"properties", properties},
                          {"additionalProperties", false}};
}

void add_schema_command(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "schema", "The results schema's definitions generated from the declarations (for docs/schema/defs.schema.json)");
    cmd->footer("Exit codes:\n  0  written\n  1  a declaration cannot be written as a schema\n  2  bad command line");
    cmd->callback([] {
        auto params = load_params_schema();
        if (!params) {
            std::cerr << "initbench schema: " << params.error().message() << "\n";
            throw CLI::RuntimeError(1);
        }
        std::cout << nlohmann::json{{"load_params", params.value()}}.dump(2) << "\n";
    });
}

} // namespace initbench
