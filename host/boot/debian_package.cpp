#include "host/boot/debian_package.h"

#include <fstream>

namespace initbench {

std::string installed_version(const std::string& package, const std::string& status_path) {
    std::ifstream in(status_path);
    std::string line, name, version;
    bool installed = false;
    // Stanzas are separated by empty lines; a package may have several (one per
    // architecture, or removed ones): the first installed one wins.
    auto stanza_done = [&] { return name == package && installed && !version.empty(); };
    while (std::getline(in, line)) {
        if (line.empty()) {
            if (stanza_done())
                return version;
            name.clear(), version.clear(), installed = false;
        } else if (line.rfind("Package: ", 0) == 0) {
            name = line.substr(9);
        } else if (line.rfind("Version: ", 0) == 0) {
            version = line.substr(9);
        } else if (line.rfind("Status: ", 0) == 0) {
            installed = line.ends_with(" installed") && line.find("install ok") != std::string::npos;
        }
    }
    return stanza_done() ? version : "";
}

} // namespace initbench
