// SPDX-License-Identifier: GPL-2.0
/* Softirq run times and raise-to-run waits per vector, from the irq tracepoints as raw
 * tracepoints: their argument is the vector itself, where a classic tracepoint's record puts
 * it after a common header whose size differs between kernels (PREEMPT_RT's is larger).
 * Nothing here needs BTF or CO-RE, so it loads on any kernel with tracepoints. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/core/log2_slot.bpf.h"
#include "bpf/core/one_slot_map.bpf.h"
#include "bpf/softirq/softirq_probe.h"

char LICENSE[] SEC("license") = "GPL";

ONE_SLOT_MAP(BPF_MAP_TYPE_PERCPU_ARRAY, cpus, struct softirq_cpu, this_cpu)

SEC("raw_tp/softirq_raise")
int on_raise(struct bpf_raw_tracepoint_args *ctx) {
    struct softirq_cpu *c = this_cpu();
    unsigned int v = (unsigned int)ctx->args[0];
    /* A raise while the vector is already pending adds no wait: the first one starts it. */
    if (c && v < SOFTIRQ_VECTORS && c->raised_ns[v] == 0)
        c->raised_ns[v] = bpf_ktime_get_ns();
    return 0;
}

SEC("raw_tp/softirq_entry")
int on_entry(struct bpf_raw_tracepoint_args *ctx) {
    struct softirq_cpu *c = this_cpu();
    unsigned int v = (unsigned int)ctx->args[0];
    if (!c || v >= SOFTIRQ_VECTORS)
        return 0;
    __u64 now = bpf_ktime_get_ns();
    c->entry_ns = now;
    __u64 raised = c->raised_ns[v];
    if (raised == 0) /* raised before the window opened (the map was zeroed) */
        return 0;
    c->raised_ns[v] = 0;
    struct softirq_vector *s = &c->vec[v];
    __u64 d = now - raised;
    s->waits++;
    s->wait_ns += d;
    if (d > s->wait_max_ns)
        s->wait_max_ns = d;
    return 0;
}

SEC("raw_tp/softirq_exit")
int on_exit(struct bpf_raw_tracepoint_args *ctx) {
    struct softirq_cpu *c = this_cpu();
    unsigned int v = (unsigned int)ctx->args[0];
    if (!c || v >= SOFTIRQ_VECTORS || c->entry_ns == 0) /* entered before the window opened */
        return 0;
    __u64 d = bpf_ktime_get_ns() - c->entry_ns;
    c->entry_ns = 0;
    struct softirq_vector *s = &c->vec[v];
    s->count++;
    s->time_ns += d;
    if (d > s->max_ns)
        s->max_ns = d;
    unsigned int slot = log2_slot(d, SOFTIRQ_LOG2_SLOTS);
    if (slot < SOFTIRQ_LOG2_SLOTS)
        c->log2[slot]++;
    return 0;
}
