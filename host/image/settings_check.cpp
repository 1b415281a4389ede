#include "host/image/settings_check.h"

#include "host/image/image_settings.h"

#include <cstdio>

namespace initbench {

bool settings_accepted(std::string_view who, const std::string& image, const std::vector<std::string>& params,
                       std::string_view bypass) {
    const auto errors = check_settings(image, params);
    for (const auto& e : errors)
        std::fprintf(stderr, "initbench %.*s: %s\n", int(who.size()), who.data(), e.describe().c_str());
    if (errors.empty())
        return true;
    std::fprintf(stderr, "initbench %.*s: refused before the boot: the init would report %s as an error record%s%.*s\n",
                 int(who.size()), who.data(), errors.size() == 1 ? "it" : "them",
                 bypass.empty() ? "" : "; ", int(bypass.size()), bypass.data());
    return false;
}

} // namespace initbench
