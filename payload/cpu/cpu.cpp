// cpu: spinning workers doing integer arithmetic and touching a private buffer, so that
// the caches and the TLB are exercised, not just an empty loop. With `cpu.load=P` below
// 100 a worker spins P % of each 10 ms slice and sleeps the rest, like stress-ng's
// --cpu-load. The busy part is the worker's own CPU time, so a worker that shares its CPU
// still does P % of a slice's work before it sleeps.
#include "common/config.h"
#include "payload/core/load.h"
#include "payload/cpu/cpu_load.h"

#include <cstdint>
#include <ctime>
#include <vector>

namespace initbench {
namespace {

constexpr double kSliceS = 0.010;

struct CpuParams {
    unsigned busy_pct = 100; // the share of each slice a worker spins (100: always)
};

double thread_cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

class Spinner {
public:
    explicit Spinner(unsigned index) : buf_(64 * 1024), x_(0x9e3779b97f4a7c15ull ^ index) {}
    // One operation: 4096 iterations.
    void op() {
        for (int i = 0; i < 4096; i++) {
            x_ ^= x_ << 13; // xorshift: cheap, not optimisable away
            x_ ^= x_ >> 7;
            x_ ^= x_ << 17;
            buf_[x_ % buf_.size()] += static_cast<uint32_t>(x_);
        }
    }

private:
    std::vector<uint32_t> buf_; // 256 KiB
    uint64_t x_;
};

[[noreturn]] void cpu_work(const WorkerContext& ctx) {
    Spinner spin(ctx.index);
    const unsigned pct = ctx.own<CpuParams>().busy_pct;
    ctx.ready();
    if (pct >= 100)
        for (;;) {
            spin.op();
            ctx.count();
        }
    const double busy_s = kSliceS * pct / 100.0;
    const timespec idle{0, static_cast<long>((kSliceS - busy_s) * 1e9)};
    for (;;) {
        const double until = thread_cpu_seconds() + busy_s;
        do {
            spin.op();
            ctx.count();
        } while (thread_cpu_seconds() < until);
        ::clock_nanosleep(CLOCK_MONOTONIC, 0, &idle, nullptr);
    }
}

void cpu_configure(const Config& config, LoadParams& p) {
    const CpuParams own{.busy_pct = static_cast<unsigned>(config.uint("cpu.load"))};
    show(p, cpu_declaration, {{"cpu_load_pct", own.busy_pct}});
    p.own = own;
}

} // namespace

extern const LoadSpec cpu_load = {
    .decl = cpu_declaration, .configure = cpu_configure, .work = cpu_work};

} // namespace initbench
