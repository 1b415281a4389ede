// The one table of configuration keys. A feature that needs a setting adds a row here;
// parsing, validation, profiles and the header record pick it up from the table.

#include "common/config.h"
#include "common/linear_hist.h"

namespace initbench {

std::string check_profile_name(std::string_view name) {
    const bool ok =
        !name.empty() && name.size() <= 32 &&
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") == std::string_view::npos;
    return ok ? "" : "must be 1 to 32 characters of a-z, 0-9, '_' and '-'";
}

namespace {

// One maker per kind keeps the rows short (and designated initializers that skip
// members would trip -Wmissing-field-initializers on g++ 12).
KeySpec key(std::string_view name, Kind kind, std::string_view def, std::string_view help) {
    KeySpec k;
    k.name = name, k.kind = kind, k.def = def, k.help = help;
    return k;
}
KeySpec uint_key(std::string_view name, std::string_view def, uint64_t min, uint64_t max,
                 std::string_view help) {
    KeySpec k = key(name, Kind::uint, def, help);
    k.umin = min, k.umax = max;
    return k;
}
KeySpec seconds_key(std::string_view name, std::string_view def, double min, double max,
                    std::string_view help) {
    KeySpec k = key(name, Kind::seconds, def, help);
    k.min = min, k.max = max;
    return k;
}
KeySpec enum_key(std::string_view name, std::string_view def, std::vector<std::string_view> choices,
                 std::string_view help) {
    KeySpec k = key(name, Kind::enumeration, def, help);
    k.choices = std::move(choices);
    return k;
}
std::string check_linear_hist(std::string_view text) {
    std::string why;
    parse_linear_hist(text, why);
    return why;
}
KeySpec checked_key(KeySpec k, std::string (*check)(std::string_view)) {
    k.check = check;
    return k;
}

} // namespace

std::span<const KeySpec> config_keys() {
    // Function-local so that it is built on first use.
    static const std::vector<KeySpec> keys = {
        checked_key(
            key("profile", Kind::string, "default", "profile applied under the command line"),
            check_profile_name),
        seconds_key("duration", "5", 0.05, 86400, "measured time per phase"),
        seconds_key("warmup", "0", 0, 3600, "unmeasured time before each phase"),
        uint_key("rounds", "1", 1, 1000, "times every phase is repeated"),
        seconds_key("timeout", "600", 1, 604800, "limit for the whole run; the init ends after it"),
        enum_key("end", "poweroff", {"poweroff", "reboot", "halt", "shell"},
                 "what the init does when done"),
        uint_key("loglevel", "1", 0, 8, "console loglevel during the run"),
        key("phases", Kind::list, "none", "phases to run, in order"),
        uint_key("workers", "0", 0, 100000,
                 "worker processes per load; 0: the load's default (one per CPU)"),
        key("funclat", Kind::list, "", "kernel functions whose latency is measured"),
        checked_key(key("funclat_hist", Kind::string, "0:1000:50:us",
                        "funclat's linear histogram MIN:MAX:STEP:UNIT (unit ns, us or ms)"),
                    check_linear_hist),
    };
    return keys;
}

const KeySpec *find_key(std::string_view name) {
    for (const KeySpec &spec : config_keys())
        if (spec.name == name)
            return &spec;
    return nullptr;
}

} // namespace initbench
