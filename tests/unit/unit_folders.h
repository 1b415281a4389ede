// The units the tree holds, found as the build finds them: a folder DIR/X/ holding
// X_SUFFIX.h (payload/X/X_load.h, bpf/X/X_probe.h). The catalog tests compare what the
// generated catalogs gathered with this.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace initbench {

// The units' names, sorted.
inline std::vector<std::string> unit_folders(const std::string& dir, const std::string& suffix) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (const std::string x = entry.path().filename().string();
            entry.is_directory() && std::filesystem::exists(entry.path() / (x + "_" + suffix + ".h")))
            names.push_back(x);
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace initbench
