#include "common/settings_layers.h"

#include "common/text.h"

#include <algorithm>

namespace initbench {

// The experiment file as a profile that includes `base` (if given, in place of its own
// include line; blanked rather than removed so that error line numbers stay right).
static std::string experiment_profile(const std::string& text, const std::string& base) {
    std::string out;
    for (auto line : split_lines(text)) {
        const std::string_view t = trim(line);
        const size_t eq = t.find('=');
        const bool include = eq != std::string_view::npos && trim(t.substr(0, eq)) == "include";
        if (!(include && !base.empty()))
            out += line;
        out += '\n';
    }
    if (!base.empty())
        out += "include = " + base + "\n";
    return out;
}

static bool has_include(const std::string& text) {
    for (auto line : split_lines(text)) {
        const std::string_view t = trim(line);
        const size_t eq = t.find('=');
        if (eq != std::string_view::npos && trim(t.substr(0, eq)) == "include")
            return true;
    }
    return false;
}

ConfigResult settings_from(const std::string& cmdline, const ProfileLookup& profiles,
                           std::vector<std::string> available,
                           const std::optional<std::string>& experiment) {
    if (!experiment)
        return parse_config(cmdline, profiles, available);
    // The command line's own profile moves under the experiment file: the rebuilt command
    // line asks for the experiment's profile instead (only initbench.* parameters matter).
    const std::string profile_key = std::string(kCmdlinePrefix) + "profile";
    const auto params = split_cmdline(cmdline);
    const auto named = std::count_if(params.begin(), params.end(),
                                     [&](const CmdlineParam& p) { return p.key == profile_key; });
    std::string base, rebuilt;
    for (const auto& p : params) {
        if (p.key.rfind(kCmdlinePrefix, 0) != 0)
            continue;
        if (p.key == profile_key && named == 1) {
            base = p.value.value_or("");
            continue;
        }
        rebuilt += p.key + (p.value ? "=\"" + *p.value + "\" " : " ");
    }
    if (named == 0 && !has_include(*experiment) && profiles && profiles("default"))
        base = "default";
    if (named <= 1)
        rebuilt += profile_key + "=" + kExperimentProfile;
    const std::string text = experiment_profile(*experiment, base);
    auto lookup = [&](std::string_view name) -> std::optional<std::string> {
        if (name == kExperimentProfile)
            return text;
        return profiles ? profiles(name) : std::nullopt;
    };
    available.push_back(kExperimentProfile);
    return parse_config(rebuilt, lookup, available);
}

} // namespace initbench
