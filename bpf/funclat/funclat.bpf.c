// SPDX-License-Identifier: GPL-2.0
/* Duration of one kernel function per call, into per-CPU log2 and linear histograms.
 * fentry/fexit and kprobe/kretprobe programs live side by side; the loader keeps the pair
 * the kernel supports and turns the other off before load. A sched_switch program, loaded
 * only when asked, takes the time a thread spent switched out inside the call off its
 * duration, however many times that happened: the BTF-typed one in funclat_switch.bpf.c,
 * or, on a kernel without BTF, the classic tracepoint here. Nothing in this object has
 * CO-RE relocations, so it loads without vmlinux BTF. */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/funclat/funclat_calls.bpf.h"
#include "bpf/core/function_hooks.bpf.h"
#include "bpf/core/log2_slot.bpf.h"
#include "bpf/core/one_slot_map.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile unsigned long long lin_min_ns = 0;
const volatile unsigned long long lin_step_ns = 1000;
const volatile unsigned int lin_buckets = 10;

ONE_SLOT_MAP(BPF_MAP_TYPE_PERCPU_ARRAY, hist, struct funclat_hist, this_cpu_hist)

static __always_inline int on_entry(void) {
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct funclat_hist *h = this_cpu_hist();
    if (!h)
        return 0;
    h->entries++;
    if (call_enter(tid) > 0)
        h->missed++;
    return 0;
}

static __always_inline void count(struct funclat_hist *h, __u64 d) {
    if (h->count == 0 || d < h->min_ns)
        h->min_ns = d;
    if (d > h->max_ns)
        h->max_ns = d;
    h->count++;
    h->sum_ns += d;
    unsigned int slot = log2_slot(d, FUNCLAT_LOG2_SLOTS);
    if (slot < FUNCLAT_LOG2_SLOTS)
        h->log2[slot]++;
    unsigned int b;
    if (d < lin_min_ns)
        b = 0;
    else {
        __u64 i = (d - lin_min_ns) / lin_step_ns;
        b = i >= lin_buckets ? lin_buckets + 1 : (unsigned int)i + 1;
    }
    if (b < FUNCLAT_LIN_MAX_BUCKETS + 2)
        h->lin[b]++;
}

static __always_inline int on_exit(void) {
    struct call_end end;
    if (!call_return((__u32)bpf_get_current_pid_tgid(), &end))
        return 0;
    struct funclat_hist *h = this_cpu_hist();
    if (!h)
        return 0;
    if (end.switches)
        h->switched_out++;
    h->subtracted_ns += end.switched_out;
    count(h, end.duration - end.switched_out);
    return 0;
}

ENTRY_HOOKS(entry, on_entry)
EXIT_HOOKS(exit, on_exit)

/* The classic record: the common header, then prev's comm, pid, prio and state, then
 * next's comm, pid and prio; the layout has not changed since 4.x. It has no preempt flag:
 * a switch that leaves the task runnable (state 0, or TASK_REPORT_MAX, 0x100, which
 * 4.14+ reports for a preemption) counts as one. */
struct sched_switch_record {
    unsigned long long common;
    char prev_comm[16];
    int prev_pid;
    int prev_prio;
    long prev_state;
    char next_comm[16];
    int next_pid;
    int next_prio;
};

SEC("tracepoint/sched/sched_switch")
int classic_switch(struct sched_switch_record *r) {
    account_switch(r->prev_pid, r->next_pid, (r->prev_state & 0xff) == 0);
    return 0;
}
