// thread: each worker process creates `thread.threads` threads, holds them all alive at
// once, releases them and joins them — continuously (the mm_cid experiment ran 128
// processes × 32 threads). One operation is one thread created, ended and joined.
#include "common/config.h"
#include "payload/load.h"

#include <unistd.h>

namespace initbench {
namespace {

constexpr size_t kStack = 32 * 1024; // the thread only waits: a small stack lets 4096 fit

void* held_thread(void* arg) {
    wait_for_gate(*static_cast<std::atomic<uint32_t>*>(arg));
    return nullptr;
}

[[noreturn]] void thread_work(const WorkerContext& ctx) {
    const unsigned n = ctx.params->threads;
    std::vector<pthread_t> ids(n);
    std::atomic<uint32_t> gate{0};
    for (bool first = true;; first = false) {
        gate.store(0, std::memory_order_relaxed);
        unsigned started = 0;
        while (started < n) {
            if (start_thread(held_thread, &gate, kStack, &ids[started]) == 0) {
                started++;
                continue;
            }
            ctx.failed();
            if (started > 0)
                break; // at the task limit: cycle the threads there are
            ::usleep(1000);
        }
        if (first)
            ctx.ready();
        open_gate(gate);
        for (unsigned i = 0; i < started; i++)
            ::pthread_join(ids[i], nullptr);
        ctx.count(started);
    }
}

uint64_t thread_tasks(const LoadParams& p) {
    return uint64_t(p.workers) * (1 + p.threads);
}

void thread_configure(const Config& config, LoadParams& p) {
    p.threads = static_cast<unsigned>(config.uint("thread.threads"));
}

} // namespace

extern const LoadSpec thread_load = {
    .name = "thread",
    .help = "worker processes that create thread.threads threads, hold them, end and join them",
    .op_unit = "thread create+exit+join",
    .sweep = "",
    .default_workers = online_cpus,
    .unsupported = always_supported,
    .tasks = thread_tasks,
    .bytes_per_op = nullptr,
    .configure = thread_configure,
    .work = thread_work,
};

} // namespace initbench
