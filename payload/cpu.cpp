// cpu: spinning workers doing integer arithmetic and touching a private buffer, so that
// the caches and the TLB are exercised, not just an empty loop.
#include "payload/load.h"

#include <cstdint>
#include <vector>

namespace initbench {

[[noreturn]] static void cpu_work(const WorkerContext& ctx) {
    std::vector<uint32_t> buf(64 * 1024); // 256 KiB
    uint64_t x = 0x9e3779b97f4a7c15ull ^ ctx.index;
    ctx.ready();
    for (;;) {
        for (int i = 0; i < 4096; i++) {
            x ^= x << 13; // xorshift: cheap, not optimisable away
            x ^= x >> 7;
            x ^= x << 17;
            buf[x % buf.size()] += static_cast<uint32_t>(x);
        }
        ctx.count();
    }
}

extern const LoadSpec cpu_load = {
    .name = "cpu",
    .help = "spinning workers: xorshift arithmetic and random writes to 256 KiB each",
    .op_unit = "4096 iterations",
    .sweep = "",
    .default_workers = online_cpus,
    .unsupported = always_supported,
    .tasks = one_task_per_worker,
    .bytes_per_op = nullptr,
    .configure = nullptr,
    .work = cpu_work,
};

} // namespace initbench
