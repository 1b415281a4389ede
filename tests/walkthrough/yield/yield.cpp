// The walk-through's toy load: each worker calls sched_yield() `yield.batch` times per
// operation.
#include "common/config.h"
#include "payload/core/load.h"
#include "payload/yield/yield_load.h"

#include <sched.h>

namespace initbench {
namespace {

struct YieldParams {
    uint64_t batch = 1;
};

[[noreturn]] void yield_work(const WorkerContext& ctx) {
    const uint64_t batch = ctx.own<YieldParams>().batch;
    ctx.ready();
    for (;;) {
        for (uint64_t i = 0; i < batch; i++)
            ::sched_yield();
        ctx.count();
    }
}

void yield_configure(const Config& config, LoadParams& p) {
    const uint64_t batch = config.uint("yield.batch");
    show(p, yield_declaration, {{"batch", batch}});
    p.own = YieldParams{.batch = batch};
}

} // namespace

extern const LoadSpec yield_load = {
    .decl = yield_declaration, .configure = yield_configure, .work = yield_work};

} // namespace initbench
