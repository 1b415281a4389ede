#include "common/config.h"
#include "common/external_load.h"
#include "common/machine.h"
#include "common/text.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace initbench {
namespace {

constexpr size_t kMaxIncludeDepth = 8;

std::string unknown_key_reason(std::string_view name, std::string_view prefix) {
    // A family's row is compared with the NAME the key gives (load.x.metrc: load.x.metric).
    const size_t dot = name.find('.');
    const std::string_view instance =
        dot == std::string_view::npos ? std::string_view() : name.substr(dot + 1).substr(0, name.substr(dot + 1).find('.'));
    std::vector<std::string> names;
    for (const KeySpec &spec : config_keys()) {
        std::string candidate(spec.name);
        if (size_t star = candidate.find('*'); star != std::string::npos) {
            if (instance.empty())
                continue;
            candidate.replace(star, 1, instance);
        }
        names.push_back(std::move(candidate));
    }
    const auto best = closest_name(name, names);
    return best ? "unknown key (did you mean '" + std::string(prefix) + *best + "'?)" : "unknown key";
}

std::string unquote(std::string_view s) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
        s = s.substr(1, s.size() - 2);
    return std::string(s);
}

} // namespace

std::string ConfigError::describe() const {
    std::string where = line ? source + " line " + std::to_string(line) : source;
    std::string what = value.empty() ? key : key + "=" + value;
    return where + ": " + (what.empty() ? "" : what + ": ") + reason;
}

nlohmann::json ConfigError::to_json() const {
    nlohmann::json j = {{"key", key}, {"value", value}, {"reason", reason}, {"source", source}};
    if (line)
        j["line"] = line;
    return j;
}

Config::Config() {
    for (const KeySpec &spec : config_keys()) {
        ConfigValue value;
        parse_value(spec, spec.def, value); // defaults are checked by a unit test
        entries_.push_back({std::move(value), std::string(spec.def), "default"});
    }
}

const Config::Entry *Config::entry(std::string_view key) const {
    std::string why;
    const KeySpec *spec = key_for(key, why);
    if (!spec)
        return nullptr;
    if (spec->name != key) // a family's key: as given, else its row's default
        if (auto it = family_entries_.find(key); it != family_entries_.end())
            return &it->second;
    return &entries_[size_t(spec - config_keys().data())];
}

std::vector<std::string> Config::family_names(std::string_view family) const {
    std::vector<std::string> names;
    for (const auto &[key, e] : family_entries_) {
        if (key.rfind(std::string(family) + ".", 0) != 0)
            continue;
        std::string name(family_name(key));
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(std::move(name));
    }
    return names;
}

template <typename T> T Config::get(std::string_view key, T fallback) const {
    const Entry *e = entry(key);
    const T *v = e ? std::get_if<T>(&e->value) : nullptr;
    return v ? *v : fallback;
}

bool command_mode(const Config& config) {
    return !config.str("cmd").empty() || !config.str("module").empty();
}

std::string Config::str(std::string_view key) const {
    const Entry *e = entry(key);
    return e ? e->text : "";
}
double Config::seconds(std::string_view key) const {
    return get(key, 0.0);
}
uint64_t Config::uint(std::string_view key) const {
    return get(key, uint64_t(0));
}
std::vector<std::string> Config::list(std::string_view key) const {
    return get(key, std::vector<std::string>{});
}
bool Config::flag(std::string_view key) const {
    return get(key, false);
}
std::string Config::source(std::string_view key) const {
    const Entry *e = entry(key);
    return e ? e->source : "";
}

nlohmann::json Config::to_json() const {
    nlohmann::json values = nlohmann::json::object(), sources = nlohmann::json::object();
    auto keys = config_keys();
    auto put = [&](const std::string &name, const Entry &e) {
        std::visit([&](const auto &v) { values[name] = v; }, e.value);
        sources[name] = e.source;
    };
    for (size_t i = 0; i < keys.size(); ++i) {
        const std::string name(keys[i].name);
        const size_t star = name.find('*');
        if (star == std::string::npos) {
            put(name, entries_[i]);
            continue;
        }
        // A family's every key for each NAME given, set or at its default.
        for (const std::string &instance : family_names(name.substr(0, star - 1))) {
            std::string key = name;
            key.replace(star, 1, instance);
            auto it = family_entries_.find(key);
            put(key, it != family_entries_.end() ? it->second : entries_[i]);
        }
    }
    return {{"values", values},
            {"sources", sources},
            {"profiles", profiles_},
            {"description", description_}};
}

// ---- the command line -------------------------------------------------------------

std::vector<CmdlineParam> split_cmdline(std::string_view s) {
    std::vector<CmdlineParam> out;
    for (size_t i = 0;;) {
        while (i < s.size() && is_space(s[i]))
            ++i;
        if (i >= s.size())
            return out;
        // As the kernel's next_arg(): quotes group words; a quote opening the token or the
        // value, and the quote closing the token, are dropped.
        const bool quoted = s[i] == '"';
        bool in_quote = quoted;
        if (quoted)
            ++i;
        const size_t start = i;
        size_t equals = std::string_view::npos;
        for (; i < s.size() && (in_quote || !is_space(s[i])); ++i) {
            if (s[i] == '=' && equals == std::string_view::npos)
                equals = i;
            if (s[i] == '"')
                in_quote = !in_quote;
        }
        std::string_view key = s.substr(start, std::min(equals, i) - start);
        std::optional<std::string_view> value;
        bool drop_end = quoted;
        if (equals != std::string_view::npos) {
            value = s.substr(equals + 1, i - equals - 1);
            if (!value->empty() && value->front() == '"') {
                value->remove_prefix(1);
                drop_end = true;
            }
        }
        std::string_view &last = value ? *value : key;
        if (drop_end && !last.empty() && last.back() == '"')
            last.remove_suffix(1);
        out.push_back(
            {std::string(key), value ? std::optional<std::string>(*value) : std::nullopt});
    }
}

std::string cmdline_word(const std::string &param) {
    if (param.find_first_of(" \t\n") == std::string::npos || param.find('"') != std::string::npos)
        return param; // one word already, or quoted by its writer
    const auto eq = param.find('=');
    if (eq == std::string::npos)
        return '"' + param + '"';
    return param.substr(0, eq + 1) + '"' + param.substr(eq + 1) + '"';
}

// ---- building a configuration -----------------------------------------------------

namespace {

// A list that is empty by default (funclat, kthread, perf) may be given empty, which clears
// what a profile set: `initbench.funclat=`. Any other key's empty value is an error.
bool empty_clears(const KeySpec &spec) {
    return spec.kind == Kind::list && spec.def.empty();
}

} // namespace

class ConfigBuilder {
public:
    ConfigBuilder(const ProfileLookup &lookup, const std::vector<std::string> &available)
        : lookup_(lookup), available_(available) {}
    ConfigResult build(std::string_view cmdline);

private:
    struct Setting {
        std::string key; // without the prefix
        std::string value;
        unsigned line = 0;
    };
    struct Profile {
        std::vector<Setting> settings;
        std::optional<Setting> include;
        std::string description;
    };

    void error(std::string_view key, std::string_view value, std::string_view reason,
               const std::string &source, unsigned line = 0) {
        result_.errors.push_back(
            {utf8_safe(key), utf8_safe(value), utf8_safe(reason), source, line});
    }
    std::string no_such_profile(std::string_view name) const {
        if (available_.empty())
            return "no such profile";
        const auto best = closest_name(name, available_);
        return "no such profile" + (best ? " (did you mean '" + *best + "'?)" : std::string()) +
               "; available: " + join(available_, ", ");
    }
    std::vector<Setting> read_cmdline(std::string_view cmdline);
    bool apply_profile(const std::string &name, std::vector<std::string> &chain);
    void include(const Setting &inc, const std::string &source, std::vector<std::string> &chain);
    Profile read_profile(std::string_view text, const std::string &source);
    void read_profile_line(std::string_view line, unsigned n, const std::string &source,
                           Profile &p);
    void apply(const Setting &s, const std::string &source, std::string_view shown_key);

    const ProfileLookup &lookup_;
    const std::vector<std::string> &available_;
    ConfigResult result_;
};

ConfigResult ConfigBuilder::build(std::string_view cmdline) {
    const std::vector<Setting> settings = read_cmdline(cmdline);
    auto asked = std::find_if(settings.begin(), settings.end(),
                              [](const Setting &s) { return s.key == "profile"; });
    const std::string profile = asked == settings.end() ? "default" : asked->value;
    // A bad name is reported when the cmdline setting is applied below.
    if (check_profile_name(profile).empty()) {
        std::vector<std::string> chain;
        if (!apply_profile(profile, chain) && asked != settings.end())
            error(std::string(kCmdlinePrefix) + "profile", profile, no_such_profile(profile), "cmdline");
    }
    for (const Setting &s : settings)
        apply(s, "cmdline", std::string(kCmdlinePrefix) + s.key);
    // Keys that must agree with each other, wherever each came from.
    if (std::string why = machine_conflict(result_.config); !why.empty()) {
        const std::string source = result_.config.source("machine.topology");
        const std::string shown = source == "cmdline" ? std::string(kCmdlinePrefix) + "machine.topology"
                                                      : std::string("machine.topology");
        error(shown, result_.config.str("machine.topology"), why, source);
    }
    for (const auto &[key, why] : external_load_conflicts(result_.config)) {
        const std::string source = result_.config.source(key);
        const std::string shown = source == "cmdline" ? std::string(kCmdlinePrefix) + key : key;
        error(shown, result_.config.str(key), why, source);
    }
    return std::move(result_);
}

std::vector<ConfigBuilder::Setting> ConfigBuilder::read_cmdline(std::string_view cmdline) {
    std::vector<Setting> out;
    for (CmdlineParam &p : split_cmdline(cmdline)) {
        if (p.key.rfind(kCmdlinePrefix, 0) != 0)
            continue; // not ours
        const std::string name = p.key.substr(kCmdlinePrefix.size());
        std::string refused;
        const KeySpec *spec = key_for(name, refused);
        const std::string value = p.value.value_or("");
        if (!spec) {
            error(p.key, value, refused.empty() ? unknown_key_reason(name, kCmdlinePrefix) : refused,
                  "cmdline");
        } else if (!p.value && spec->kind != Kind::flag) {
            error(p.key, "", "missing value: write " + p.key + "=VALUE", "cmdline");
        } else if (std::any_of(out.begin(), out.end(),
                               [&](const Setting &s) { return s.key == name; })) {
            error(p.key, value, "given more than once on the command line", "cmdline");
        } else {
            out.push_back({name, p.value ? value : "1"}); // a bare flag means on
        }
    }
    return out;
}

// Applies a profile and, first, what it includes. False if there is no such profile.
bool ConfigBuilder::apply_profile(const std::string &name, std::vector<std::string> &chain) {
    std::optional<std::string> text = lookup_ ? lookup_(name) : std::nullopt;
    if (!text)
        return false;
    const std::string source = "profile:" + name;
    const Profile p = read_profile(*text, source);
    chain.push_back(name);
    if (p.include)
        include(*p.include, source, chain);
    chain.pop_back();
    for (const Setting &s : p.settings)
        apply(s, source, s.key);
    // The description is the chosen profile's (or experiment file's) own: one that includes
    // another without a description of its own is not what the included one describes.
    if (chain.empty())
        result_.config.description_ = p.description;
    result_.config.profiles_.push_back(name);
    return true;
}

void ConfigBuilder::include(const Setting &inc, const std::string &source,
                            std::vector<std::string> &chain) {
    if (std::string why = check_profile_name(inc.value); !why.empty())
        return error("include", inc.value, why, source, inc.line);
    if (std::find(chain.begin(), chain.end(), inc.value) != chain.end())
        return error("include", inc.value,
                     "include cycle: " + join(chain, " -> ") + " -> " + inc.value, source,
                     inc.line);
    if (chain.size() >= kMaxIncludeDepth)
        return error("include", inc.value, "includes nested too deep", source, inc.line);
    if (!apply_profile(inc.value, chain))
        error("include", inc.value, no_such_profile(inc.value), source, inc.line);
}

ConfigBuilder::Profile ConfigBuilder::read_profile(std::string_view text,
                                                   const std::string &source) {
    Profile p;
    unsigned n = 0;
    for (size_t start = 0; start < text.size();) {
        const size_t nl = std::min(text.find('\n', start), text.size());
        read_profile_line(trim(text.substr(start, nl - start)), ++n, source, p);
        start = nl + 1;
    }
    return p;
}

// `key = value`, `# comment` or blank.
void ConfigBuilder::read_profile_line(std::string_view line, unsigned n, const std::string &source,
                                      Profile &p) {
    if (line.empty() || line[0] == '#')
        return;
    const size_t eq = line.find('=');
    const std::string key(trim(line.substr(0, std::min(eq, line.size()))));
    if (eq == std::string_view::npos || key.empty())
        return error("", line, "expected 'key = value'", source, n);
    Setting s{key, unquote(trim(line.substr(eq + 1))), n};
    auto fail = [&](std::string reason) { error(key, s.value, std::move(reason), source, n); };
    auto given = [&](const Setting &o) { return o.key == key; };
    std::string refused;
    const KeySpec *spec = key_for(key, refused);
    if (s.value.empty() && !(spec && empty_clears(*spec)))
        return fail("empty value");
    if (!valid_utf8(s.value))
        return fail("not valid UTF-8");
    if (key == "description") {
        p.description = s.value;
    } else if (key == "include") {
        if (p.include)
            return fail("given more than once in this profile");
        p.include = s;
    } else if (key == "profile") {
        fail("a profile cannot choose the profile; use 'include = NAME'");
    } else if (key.rfind(kCmdlinePrefix, 0) == 0) {
        fail("drop the 'initbench.' prefix in a profile");
    } else if (!spec) {
        fail(refused.empty() ? unknown_key_reason(key, "") : refused);
    } else if (std::any_of(p.settings.begin(), p.settings.end(), given)) {
        fail("given more than once in this profile");
    } else {
        p.settings.push_back(std::move(s));
    }
}

void ConfigBuilder::apply(const Setting &s, const std::string &source, std::string_view shown_key) {
    std::string refused;
    const KeySpec *spec = key_for(s.key, refused);
    if (!spec)
        return; // reported when read
    if (s.value.empty() && !empty_clears(*spec))
        return error(std::string(shown_key), "", "empty value", source, s.line);
    if (!valid_utf8(s.value))
        return error(std::string(shown_key), s.value, "not valid UTF-8", source, s.line);
    ConfigValue value;
    if (std::string why = parse_value(*spec, s.value, value); !why.empty())
        return error(std::string(shown_key), s.value, std::move(why), source, s.line);
    std::string text =
        spec->kind == Kind::list ? join(std::get<std::vector<std::string>>(value), ",") : s.value;
    Config::Entry entry{std::move(value), std::move(text), source};
    if (spec->name != s.key)
        result_.config.family_entries_[s.key] = std::move(entry);
    else
        result_.config.entries_[size_t(spec - config_keys().data())] = std::move(entry);
}

ConfigResult parse_config(std::string_view cmdline, const ProfileLookup &lookup,
                          const std::vector<std::string> &available) {
    try {
        return ConfigBuilder(lookup, available).build(cmdline);
    } catch (const std::exception &e) { // allocation failure, or a throwing lookup
        ConfigResult r;
        r.errors.push_back({"", "", std::string("internal error: ") + e.what(), "config"});
        return r;
    } catch (...) {
        ConfigResult r;
        r.errors.push_back({"", "", "internal error", "config"});
        return r;
    }
}

} // namespace initbench
