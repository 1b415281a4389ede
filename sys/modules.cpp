#include "sys/modules.h"

#include "common/text.h"
#include "sys/sys.h"

#include <algorithm>
#include <dirent.h>

namespace initbench {

std::vector<std::string> loaded_modules() {
    std::vector<std::string> names;
    for (auto line : split_lines(read_file("/proc/modules").value_or("")))
        if (auto words = split_words(line); !words.empty())
            names.emplace_back(words[0]);
    return names;
}

std::string new_module_name(const std::vector<std::string>& before, const std::string& path) {
    for (const auto& name : loaded_modules())
        if (std::find(before.begin(), before.end(), name) == before.end())
            return name;
    std::string base = path.substr(path.rfind('/') + 1);
    base = base.substr(0, base.find('.'));
    std::replace(base.begin(), base.end(), '-', '_');
    return base;
}

std::map<std::string, std::string> module_parameters(const std::string& name) {
    std::map<std::string, std::string> out;
    const std::string dir = "/sys/module/" + name + "/parameters";
    DIR* d = ::opendir(dir.c_str());
    if (!d)
        return out;
    while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.' || out.size() >= 32)
            continue;
        if (auto v = read_file(dir + "/" + e->d_name, 256))
            out[e->d_name] = std::string(trim(v.value()));
    }
    ::closedir(d);
    return out;
}

} // namespace initbench
