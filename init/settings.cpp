#include "init/settings.h"

#include "common/text.h"
#include "sys/sys.h"

#include <algorithm>
#include <dirent.h>

namespace initbench {

static std::vector<std::string> available_profiles() {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(kProfileDir)) {
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 5 && n.ends_with(".conf"))
                names.push_back(n.substr(0, n.size() - 5));
        }
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

ConfigResult load_settings(const std::string& cmdline) {
    auto lookup = [](std::string_view name) -> std::optional<std::string> {
        auto text = read_file(std::string(kProfileDir) + "/" + std::string(name) + ".conf");
        if (!text)
            return std::nullopt;
        return text.value();
    };
    std::optional<std::string> experiment;
    if (auto text = read_file(kExperimentFile))
        experiment = text.value();
    return settings_from(cmdline, lookup, available_profiles(), experiment);
}

} // namespace initbench
