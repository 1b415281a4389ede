// The one list of loads. A load that cannot run on this kernel is still listed: its
// unsupported() says why, and the phase reports that instead of a number.
#include "payload/external.h"
#include "payload/load.h"

#include <unistd.h>

namespace initbench {

extern const LoadSpec cpu_load;
extern const LoadSpec fork_load;
extern const LoadSpec thread_load;
extern const LoadSpec pipe_load;
extern const LoadSpec tcp_load;
extern const LoadSpec sleep_load;
extern const LoadSpec syscall_load;
extern const LoadSpec mmap_load;

const std::vector<const LoadSpec*>& load_registry() {
    static const std::vector<const LoadSpec*> loads = {&cpu_load,  &fork_load, &thread_load,
                                                       &pipe_load, &tcp_load,  &sleep_load, &syscall_load,
                                                       &mmap_load};
    return loads;
}

const LoadSpec* find_load(std::string_view name) {
    for (const auto* l : load_registry())
        if (l->name == name)
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
