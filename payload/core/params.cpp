// From the configuration to a phase's LoadParams: the framework does this once per phase,
// so that a load's worker only reads plain numbers.
#include "common/config.h"
#include "payload/core/external.h"
#include "payload/core/load.h"
#include "common/text.h"

#include <algorithm>

namespace initbench {

std::vector<unsigned> sweep_values(const LoadSpec& spec, const Config& config) {
    if (spec.sweep().empty())
        return {0};
    std::string why; // the key's own check refused anything but counts
    return expand_counts(config.list(spec.sweep()), online_cpus(), why).value_or(std::vector<unsigned>{});
}

LoadParams resolve_params(const LoadSpec& spec, const Config& config, unsigned sweep_value) {
    if (const ExternalLoad* external = find_external(spec))
        return external_params(*external, config, sweep_value);
    LoadParams p;
    const uint64_t workers = config.uint("workers");
    p.workers = sweep_value ? sweep_value
                : workers   ? static_cast<unsigned>(workers)
                            : spec.default_workers();
    if (spec.configure)
        spec.configure(config, p);
    return p;
}

std::vector<const LoadSpec*> phase_loads(std::string_view name, std::string& why) {
    std::vector<const LoadSpec*> loads;
    const bool joined = name.find('+') != std::string_view::npos;
    for (size_t at = 0;;) {
        const size_t plus = std::min(name.find('+', at), name.size());
        const std::string part(name.substr(at, plus - at));
        const LoadSpec* load = find_load(part);
        const std::string in = joined ? " in '" + std::string(name) + "'" : "";
        if (!load) {
            std::vector<std::string> names;
            for (const auto* l : load_registry())
                names.emplace_back(l->name());
            for (std::string& external : external_load_names())
                names.push_back(std::move(external));
            const auto best = closest_name(part, names);
            why = "unknown load '" + part + "'" + in + (best ? " (did you mean '" + *best + "'?)" : "") +
                  "; loads: " + join(names, ", ");
            return {};
        }
        // Each part's metrics are named after it: one load twice would give one name two values.
        if (std::find(loads.begin(), loads.end(), load) != loads.end()) {
            why = "load '" + part + "' twice" + in;
            return {};
        }
        // A swept load makes one phase per value: it runs in a phase of its own.
        if (joined && !load->sweep().empty()) {
            why = "load '" + part + "'" + in + " has a sweep key (" + std::string(load->sweep()) +
                  "): it runs in a phase of its own";
            return {};
        }
        loads.push_back(load);
        if (plus == name.size())
            return loads;
        at = plus + 1;
    }
}

std::vector<ConfigError> check_phases(const Config& config) {
    define_external_loads(config);
    std::vector<ConfigError> errors;
    const std::string source = config.source("phases");
    const std::string key = source == "cmdline" ? std::string(kCmdlinePrefix) + "phases" : "phases";
    for (const auto& name : config.list("phases")) {
        std::string why;
        if (name != "none" && phase_loads(name, why).empty())
            errors.push_back({key, name, why, source});
    }
    return errors;
}

namespace {

bool declared(const LoadDecl& decl, const std::string& name, const nlohmann::json& value) {
    for (const KeySpec& key : decl.keys) {
        if (key.shown_as != name)
            continue;
        if (key.kind != Kind::enumeration)
            return true;
        if (!value.is_string())
            return false;
        const std::vector<std::string_view> choices = split_on(key.choices, '|');
        return std::find(choices.begin(), choices.end(), value.get<std::string>()) != choices.end();
    }
    return false;
}

} // namespace

void show(LoadParams& p, const LoadDecl& decl, const nlohmann::json& values) {
    for (const auto& [name, value] : values.items()) {
        if (declared(decl, name, value))
            p.shown[name] = value;
        else
            p.shown["undeclared"][name] = value;
    }
}

nlohmann::json params_json(const LoadParams& p) {
    nlohmann::json j{{"workers", p.workers}};
    j.update(p.shown); // an external load's "workers" is what its program was told
    return j;
}

} // namespace initbench
