// The units the tree holds, found as the build finds them (cmake/Catalog.cmake): a folder
// DIR/X/ holding its declaration (payload/X/load.json, bpf/X/X_probe.h). The catalog tests
// compare what the generated catalogs gathered with this.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace initbench {

// The units' names, sorted. `marker`: the declaration's file name, with '@' for the folder's
// name ("load.json", "@_probe.h").
inline std::vector<std::string> unit_folders(const std::string& dir, const std::string& marker) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string x = entry.path().filename().string();
        std::string file = marker;
        if (const size_t at = file.find('@'); at != std::string::npos)
            file.replace(at, 1, x);
        if (entry.is_directory() && std::filesystem::exists(entry.path() / file))
            names.push_back(x);
    }
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace initbench
