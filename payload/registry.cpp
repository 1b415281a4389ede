#include "payload/load.h"

#include <unistd.h>

namespace initbench {

extern const LoadSpec cpu_load;
extern const LoadSpec fork_load;

const std::vector<const LoadSpec*>& load_registry() {
    static const std::vector<const LoadSpec*> loads = {&cpu_load, &fork_load};
    return loads;
}

const LoadSpec* find_load(std::string_view name) {
    for (const auto* l : load_registry())
        if (l->name == name)
            return l;
    return nullptr;
}

unsigned online_cpus() {
    long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1;
}

std::string always_supported() { return {}; }

} // namespace initbench
