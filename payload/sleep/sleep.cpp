// sleep: many tasks — thousands — that sleep `sleep.interval` and wake, in a loop, spread
// over the workers. They are threads with small stacks, so that 15 000 fit in a 2 GiB guest;
// or, with `sleep.mode=process`, processes of their own, as the RCU Tasks Trace experiment
// forked them (each has its own task storage and mm). One operation is one wake-up.
#include "common/config.h"
#include "payload/core/load.h"
#include "payload/sleep/sleep_load.h"

#include <cmath>
#include <new>
#include <ctime>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace initbench {
namespace {

constexpr size_t kStack = 16 * 1024; // a sleeper's frames are tiny

struct SleepParams {
    uint64_t sleepers = 0;   // sleeping tasks of all workers together
    double interval_s = 0;   // how long each sleeper sleeps per loop
    unsigned random_s = 0;   // N > 0: each sleep a random whole number of seconds below N
    bool processes = false;  // the sleepers are processes, not threads
    long syscall_nr = -1;    // a system call after each wake-up (-1: none)
};

struct Sleeper {
    const WorkerContext* ctx;
    std::atomic<uint32_t>* gate;
    double first_s; // staggered, so that thousands of sleepers do not wake in step
    uint64_t seed;  // sleep.random: this sleeper's own generator (rand() is one per process)
};

// xorshift64*: a sleeper's random sleeps without a lock shared by thousands of threads.
uint64_t next_random(uint64_t& state) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
}

timespec to_timespec(double s) {
    return {static_cast<time_t>(s), static_cast<long>((s - std::floor(s)) * 1e9)};
}

void* sleeper(void* arg) {
    const auto& me = *static_cast<const Sleeper*>(arg);
    wait_for_gate(*me.gate);
    const SleepParams& own = me.ctx->own<SleepParams>();
    const unsigned random_s = own.random_s;
    uint64_t state = me.seed | 1; // xorshift's state must not be 0
    timespec ts = to_timespec(random_s ? double(next_random(state) % random_s) : me.first_s);
    ::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
    ts = to_timespec(own.interval_s);
    const long nr = own.syscall_nr;
    for (;;) {
        if (random_s) // the RCU seed's sleep(rand() % N): a 0 goes round again at once
            ts = {static_cast<time_t>(next_random(state) % random_s), 0};
        if (ts.tv_sec || ts.tv_nsec)
            ::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
        if (nr >= 0) // the RCU Tasks Trace seed: each sleeper calls getpgid() when it wakes
            ::syscall(nr, 0);
        me.ctx->count();
    }
}

// A different sequence for every sleeper of every worker.
uint64_t sleeper_seed(const WorkerContext& ctx, uint64_t i) {
    return (uint64_t(ctx.index) << 32 ^ i) * 0x9E3779B97F4A7C15ULL + 1;
}

// Each sleeper a process: forked with the gate in shared memory, dying with the worker.
[[noreturn]] void sleep_processes(const WorkerContext& ctx, uint64_t mine) {
    const double interval = ctx.own<SleepParams>().interval_s;
    void* shared = ::mmap(nullptr, sizeof(std::atomic<uint32_t>), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        ::_exit(1);
    auto* gate = new (shared) std::atomic<uint32_t>(0);
    const pid_t worker = ::getpid();
    for (uint64_t i = 0; i < mine; i++) {
        if (fork_retrying(ctx) == 0) {
            die_with_parent(worker);
            Sleeper me{&ctx, gate, interval * double(i) / double(mine), sleeper_seed(ctx, i)};
            sleeper(&me); // never returns
            ::_exit(0);
        }
    }
    open_gate(*gate);
    ctx.ready();
    supervise_children();
}

[[noreturn]] void sleep_work(const WorkerContext& ctx) {
    const unsigned workers = ctx.params->workers;
    const SleepParams& p = ctx.own<SleepParams>();
    const uint64_t mine = p.sleepers / workers + (ctx.index < p.sleepers % workers ? 1 : 0);
    if (p.processes)
        sleep_processes(ctx, mine);
    // All are created before any runs: waking sleepers would starve the creation.
    std::atomic<uint32_t> gate{0};
    std::vector<Sleeper> sleepers(mine);
    for (uint64_t i = 0; i < mine; i++) {
        sleepers[i] = {&ctx, &gate, p.interval_s * double(i) / double(mine), sleeper_seed(ctx, i)};
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
    return p.workers + own_params<SleepParams>(p).sleepers;
}

void sleep_configure(const Config& config, LoadParams& p) {
    const std::string syscall = config.str("sleep.syscall");
    const SleepParams own{.sleepers = config.uint("sleep.tasks"),
                          .interval_s = config.seconds("sleep.interval"),
                          .random_s = static_cast<unsigned>(config.uint("sleep.random")),
                          .processes = config.str("sleep.mode") == "process",
                          .syscall_nr = syscall == "none" ? -1 : syscall_number(syscall)};
    show(p, sleep_declaration, {{"sleepers", own.sleepers}, {"mode", own.processes ? "process" : "thread"}});
    if (own.random_s)
        show(p, sleep_declaration, {{"random_s", own.random_s}});
    else
        show(p, sleep_declaration, {{"interval_s", own.interval_s}});
    if (syscall != "none")
        show(p, sleep_declaration, {{"syscall", syscall}});
    p.own = own;
}

} // namespace

extern const LoadSpec sleep_load = {
    .decl = sleep_declaration, .tasks = sleep_tasks, .configure = sleep_configure,
    .work = sleep_work};

} // namespace initbench
