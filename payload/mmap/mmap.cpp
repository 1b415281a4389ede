// mmap: each worker maps `mmap.size_kb` KiB of private anonymous memory, writes one byte to
// every page (a page fault each), and unmaps it, in a loop: the memory manager's paths
// (mmap_lock, the VMA tree, page allocation and zeroing, the unmap's zap and TLB flush)
// that a patch to mm/ moves. One operation is one map, touch and unmap.
#include "common/config.h"
#include "payload/core/load.h"
#include "payload/mmap/mmap_load.h"

#include <sys/mman.h>
#include <unistd.h>

namespace initbench {
namespace {

struct MmapParams {
    size_t bytes = 0; // mapped and touched per operation
};

[[noreturn]] void mmap_work(const WorkerContext& ctx) {
    const size_t bytes = ctx.own<MmapParams>().bytes;
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    ctx.ready();
    for (;;) {
        void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) {
            ctx.failed(); // the memory limit: back off and try again
            ::usleep(1000);
            continue;
        }
        auto* p = static_cast<volatile char*>(map);
        for (size_t at = 0; at < bytes; at += page)
            p[at] = 1;
        ::munmap(map, bytes);
        ctx.count();
    }
}

uint64_t mmap_bytes(const LoadParams& p) {
    return own_params<MmapParams>(p).bytes;
}

void mmap_configure(const Config& config, LoadParams& p) {
    const uint64_t kib = config.uint("mmap.size_kb");
    show(p, mmap_declaration, {{"size_kb", kib}});
    p.own = MmapParams{.bytes = static_cast<size_t>(kib) * 1024};
}

} // namespace

extern const LoadSpec mmap_load = {
    .decl = mmap_declaration, .bytes_per_op = mmap_bytes, .configure = mmap_configure,
    .work = mmap_work};

} // namespace initbench
