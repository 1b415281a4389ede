#pragma once
// The experiment configuration: initbench.* parameters of the kernel command line over a
// profile (and what it includes) over the defaults. Every value is checked against one key
// table (config_keys.cpp); problems come back as a list, nothing throws.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace initbench {

enum class Kind { uint, seconds, enumeration, string, list, flag };

struct KeySpec {
    std::string_view name; // without the "initbench." prefix
    Kind kind = Kind::string;
    std::string_view def; // default, as text: parsed like user input
    std::string_view help;
    uint64_t umin = 0, umax = 0;           // Kind::uint; Kind::list of counts when umax > 0
    double min = 0, max = 0;               // Kind::seconds
    std::string_view choices;              // Kind::enumeration: the values, '|' between them
    // Extra check of a string or of each list item: why it is refused, empty if fine.
    std::string (*check)(std::string_view value) = nullptr;
    // A family's row has '*' for a NAME in its name (load.*.setup); this checks the NAME.
    std::string (*name_check)(std::string_view name) = nullptr;
    // A load's key whose value its phase records show in load.params: the name there, or "".
    std::string_view shown_as;
};

std::span<const KeySpec> config_keys();
// The same keys by who declares them, in config_keys()' order: the general ones (owner
// "general"), then each load's ("load NAME"), then each probe's ("probe NAME").
struct KeyOwner {
    std::string owner;
    std::span<const KeySpec> keys;
    std::string about = {}; // a load's: what it does and what one operation is
};
std::vector<KeyOwner> key_owners();
// A key of the table, exactly as named (a family's row by its name with '*').
const KeySpec *find_key(std::string_view name);
// The row of a key as given: an exact key, or a family's row whose '*' stands for a NAME
// that its name_check takes. Null, with `why` set when the NAME is refused, if none.
const KeySpec *key_for(std::string_view name, std::string &why);
// The NAME a family key stands for ("x" for load.x.setup), or "" for any other key.
std::string_view family_name(std::string_view key);
// The check of profile names: [a-z0-9_-]{1,32}.
std::string check_profile_name(std::string_view name);

constexpr std::string_view kCmdlinePrefix = "initbench.";

struct ConfigError {
    std::string key; // as written: "initbench.x" on the command line, "x" in a profile
    std::string value;
    std::string reason;
    std::string source; // "cmdline" or "profile:NAME"
    unsigned line = 0;  // in the profile; 0 for the command line

    std::string describe() const; // one line for a human
    nlohmann::json to_json() const;
};

using ConfigValue = std::variant<uint64_t, double, std::string, std::vector<std::string>, bool>;

class Config {
public:
    Config(); // every key at its default

    // Typed getters. Asking with an unknown key or the wrong kind is a programming error
    // and yields 0 / "" / {} / false rather than a throw.
    std::string str(std::string_view key) const; // any kind: the value as text
    double seconds(std::string_view key) const;
    uint64_t uint(std::string_view key) const;
    std::vector<std::string> list(std::string_view key) const;
    bool flag(std::string_view key) const;
    std::string source(std::string_view key) const; // "default", "profile:NAME", "cmdline"

    // The NAMEs of a family's keys that were given: {"stress"} for load.stress=...
    std::vector<std::string> family_names(std::string_view family) const;

    const std::vector<std::string> &profiles() const { return profiles_; } // applied, base first
    const std::string &description() const { return description_; }

    // {"values": {key: typed value}, "sources": {key: source}, "profiles": [...],
    //  "description": "..."}
    nlohmann::json to_json() const;

private:
    friend class ConfigBuilder;
    struct Entry {
        ConfigValue value;
        std::string text;
        std::string source;
    };
    const Entry *entry(std::string_view key) const;
    template <typename T> T get(std::string_view key, T fallback) const;

    std::vector<Entry> entries_; // parallel to config_keys(); a family's row holds its default
    std::map<std::string, Entry, std::less<>> family_entries_; // family keys given, by key
    std::vector<std::string> profiles_;
    std::string description_;
};

// True when the configuration names a command or a module: the run measures those and runs
// no phases (so `pin` is read, and `load.cpus` is not).
bool command_mode(const Config& config);

struct ConfigResult {
    Config config; // usable even with errors: a refused value keeps the earlier one
    std::vector<ConfigError> errors;
    bool ok() const { return errors.empty(); }
};

// Returns a profile's text, or nothing if there is no such profile. Only called with
// names that pass check_profile_name(), so a name is safe to put in a file path.
using ProfileLookup = std::function<std::optional<std::string>(std::string_view name)>;

// `available` only improves the message for an unknown profile. A missing "default"
// profile is not an error unless it was asked for by name.
ConfigResult parse_config(std::string_view cmdline, const ProfileLookup &lookup,
                          const std::vector<std::string> &available = {});

// One kernel command line parameter, quotes removed the way the kernel's next_arg() does.
struct CmdlineParam {
    std::string key;
    std::optional<std::string> value; // none for a bare "key"
};
std::vector<CmdlineParam> split_cmdline(std::string_view cmdline);
// The inverse for one parameter: as one word of the kernel command line. A value with spaces,
// as a shell passes initbench.module.params="a=1 b=2", is quoted (key="a=1 b=2"), which the
// kernel's parser and split_cmdline read as one parameter. One with a quote is left as it is.
std::string cmdline_word(const std::string &param);

// Parses `text` as a value of `spec`: why it is refused, or empty and `out` set.
std::string parse_value(const KeySpec &spec, std::string_view text, ConfigValue &out);

} // namespace initbench
