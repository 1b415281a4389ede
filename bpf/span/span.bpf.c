// SPDX-License-Identifier: GPL-2.0
/* The time from one kernel event (entry of function FROM) to the next event TO (entry of
 * function TO), e.g. rcu_tasks_trace_pregp_step → rcu_tasks_trace_postgp: one span per
 * grace period. Spans are rare and may cross CPUs, so one global state is kept. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/core/function_hooks.bpf.h"
#include "bpf/core/log2_slot.bpf.h"
#include "bpf/core/one_slot_map.bpf.h"
#include "bpf/span/span_probe.h"

char LICENSE[] SEC("license") = "GPL";

struct state {
    __u64 from_ts; /* first FROM since the last TO, 0 if none */
    struct span_stats s;
};

ONE_SLOT_MAP(BPF_MAP_TYPE_ARRAY, span, struct state, get_state)

static __always_inline int on_from(void) {
    struct state *st = get_state();
    if (st && st->from_ts == 0)
        st->from_ts = bpf_ktime_get_ns();
    return 0;
}

static __always_inline int on_to(void) {
    struct state *st = get_state();
    if (!st)
        return 0;
    __u64 from = st->from_ts;
    if (from == 0) {
        __sync_fetch_and_add(&st->s.unmatched_to, 1);
        return 0;
    }
    __u64 d = bpf_ktime_get_ns() - from;
    st->from_ts = 0;
    __u64 us = d / 1000;
    __sync_fetch_and_add(&st->s.count, 1);
    __sync_fetch_and_add(&st->s.sum_ns, d);
    __sync_fetch_and_add(&st->s.sum_sq_us2, us * us);
    if (st->s.min_ns == 0 || d < st->s.min_ns)
        st->s.min_ns = d;
    if (d > st->s.max_ns)
        st->s.max_ns = d;
    unsigned int slot = log2_slot(d, SPAN_LOG2_SLOTS);
    if (slot < SPAN_LOG2_SLOTS)
        __sync_fetch_and_add(&st->s.log2[slot], 1);
    return 0;
}

ENTRY_HOOKS(from, on_from)
ENTRY_HOOKS(to, on_to)
