// sleep: many tasks — thousands — that sleep `sleep.interval` and wake, in a loop. They
// are threads with small stacks spread over the workers, so that 15 000 fit in a 2 GiB
// guest. One operation is one wake-up.
#include "common/config.h"
#include "payload/load.h"

#include <cmath>
#include <ctime>
#include <unistd.h>

namespace initbench {
namespace {

constexpr size_t kStack = 16 * 1024; // a sleeper's frames are tiny

struct Sleeper {
    const WorkerContext* ctx;
    std::atomic<uint32_t>* gate;
    double first_s; // staggered, so that thousands of sleepers do not wake in step
};

timespec to_timespec(double s) {
    return {static_cast<time_t>(s), static_cast<long>((s - std::floor(s)) * 1e9)};
}

void* sleeper(void* arg) {
    const auto& me = *static_cast<const Sleeper*>(arg);
    wait_for_gate(*me.gate);
    timespec ts = to_timespec(me.first_s);
    ::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
    ts = to_timespec(me.ctx->params->interval_s);
    for (;;) {
        ::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
        me.ctx->count();
    }
}

[[noreturn]] void sleep_work(const WorkerContext& ctx) {
    const LoadParams& p = *ctx.params;
    const uint64_t mine = p.sleepers / p.workers + (ctx.index < p.sleepers % p.workers ? 1 : 0);
    // All are created before any runs: waking sleepers would starve the creation.
    std::atomic<uint32_t> gate{0};
    std::vector<Sleeper> sleepers(mine);
    for (uint64_t i = 0; i < mine; i++) {
        sleepers[i] = {&ctx, &gate, p.interval_s * double(i) / double(mine)};
        pthread_t id;
        while (start_thread(sleeper, &sleepers[i], kStack, &id) != 0) {
            ctx.failed();
            ::usleep(1000); // at the task limit
        }
    }
    open_gate(gate);
    ctx.ready();
    for (;;)
        ::pause();
}

uint64_t sleep_tasks(const LoadParams& p) {
    return p.workers + p.sleepers;
}

void sleep_configure(const Config& config, LoadParams& p) {
    p.sleepers = config.uint("sleep.tasks");
    p.interval_s = config.seconds("sleep.interval");
}

} // namespace

extern const LoadSpec sleep_load = {
    .name = "sleep",
    .help = "sleep.tasks threads over the workers that sleep sleep.interval and wake, in a loop",
    .op_unit = "wake-up",
    .sweep = "",
    .default_workers = online_cpus,
    .unsupported = always_supported,
    .tasks = sleep_tasks,
    .bytes_per_op = nullptr,
    .configure = sleep_configure,
    .work = sleep_work,
};

} // namespace initbench
