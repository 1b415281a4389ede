// Finding a load, and the defaults of LoadSpec. The list of loads, load_registry(), is
// written by the build from payload/X/load.json (cmake/Catalog.cmake). A load that cannot run
// on this kernel is still listed: its unsupported() says why, and the phase reports that
// instead of a number.
#include "payload/core/external.h"
#include "payload/core/load.h"

#include <unistd.h>

namespace initbench {

const LoadSpec* find_load(std::string_view name) {
    for (const auto* l : load_registry())
        if (l->name() == name)
            return l;
    return find_external_load(name);
}

unsigned online_cpus() {
    long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1;
}

std::string always_supported() {
    return {};
}

uint64_t one_task_per_worker(const LoadParams& p) {
    return p.workers;
}

} // namespace initbench
