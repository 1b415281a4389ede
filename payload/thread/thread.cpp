// thread: worker processes that create and end threads. Two modes:
// - batch: create `thread.threads` threads, hold them all alive at once, release and join
//   them, over and over, as stress-ng's `--pthread N --pthread-max M` does (the mm_cid
//   experiment's thread load);
// - continuous: keep at most `thread.threads` threads alive and start a new one as soon as
//   the oldest has ended.
// One operation is one thread created, ended and joined.
#include "common/config.h"
#include "payload/core/load.h"
#include "payload/thread/thread_load.h"

#include <unistd.h>

namespace initbench {
namespace {

constexpr size_t kStack = 32 * 1024; // the thread only waits: a small stack lets 4096 fit

struct ThreadParams {
    unsigned threads = 0;    // per worker, alive together (at most, if continuous)
    bool continuous = false; // refill each ended thread at once instead of in batches
};

void* held_thread(void* arg) {
    wait_for_gate(*static_cast<std::atomic<uint32_t>*>(arg));
    return nullptr;
}

void* ending_thread(void*) {
    return nullptr;
}

// Starts a thread, retrying while the kernel refuses (task limit, memory); counts refusals.
void start_retrying(const WorkerContext& ctx, void* (*fn)(void*), void* arg, pthread_t* id) {
    while (start_thread(fn, arg, kStack, id) != 0) {
        ctx.failed();
        ::usleep(1000);
    }
}

[[noreturn]] void continuous_work(const WorkerContext& ctx) {
    const unsigned n = ctx.own<ThreadParams>().threads;
    std::vector<pthread_t> ring(n);
    for (unsigned i = 0; i < n; i++)
        start_retrying(ctx, ending_thread, nullptr, &ring[i]);
    ctx.ready();
    // The oldest thread is joined and its slot refilled at once: never more than n alive.
    for (unsigned oldest = 0;; oldest = (oldest + 1) % n) {
        ::pthread_join(ring[oldest], nullptr);
        ctx.count();
        start_retrying(ctx, ending_thread, nullptr, &ring[oldest]);
    }
}

[[noreturn]] void batch_work(const WorkerContext& ctx) {
    const unsigned n = ctx.own<ThreadParams>().threads;
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

[[noreturn]] void thread_work(const WorkerContext& ctx) {
    if (ctx.own<ThreadParams>().continuous)
        continuous_work(ctx);
    batch_work(ctx);
}

uint64_t thread_tasks(const LoadParams& p) {
    return uint64_t(p.workers) * (1 + own_params<ThreadParams>(p).threads);
}

void thread_configure(const Config& config, LoadParams& p) {
    const ThreadParams own{.threads = static_cast<unsigned>(config.uint("thread.threads")),
                           .continuous = config.str("thread.mode") == "continuous"};
    show(p, thread_declaration, {{"threads", own.threads}, {"mode", own.continuous ? "continuous" : "batch"}});
    p.own = own;
}

} // namespace

extern const LoadSpec thread_load = {
    .decl = thread_declaration, .tasks = thread_tasks, .configure = thread_configure,
    .work = thread_work};

} // namespace initbench
