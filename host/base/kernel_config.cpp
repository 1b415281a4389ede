#include "host/base/kernel_config.h"

#include <sstream>

namespace initbench {

std::map<std::string, std::string> parse_kernel_config(std::string_view text) {
    std::map<std::string, std::string> out;
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with("CONFIG_"))
            continue;
        auto eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        out[line.substr(7, eq - 7)] = line.substr(eq + 1);
    }
    return out;
}

} // namespace initbench
