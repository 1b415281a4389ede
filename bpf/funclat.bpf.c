// SPDX-License-Identifier: GPL-2.0
/* Duration of one kernel function per call, into per-CPU log2 and linear histograms.
 * fentry/fexit and kprobe/kretprobe programs live side by side; the loader keeps the pair
 * the kernel supports and turns the other off before load. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/funclat.h"

char LICENSE[] SEC("license") = "GPL";

const volatile unsigned long long lin_min_ns = 0;
const volatile unsigned long long lin_step_ns = 1000;
const volatile unsigned int lin_buckets = 10;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, FUNCLAT_MAX_THREADS);
    __type(key, __u32);   /* thread id */
    __type(value, __u64); /* entry time */
} starts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct funclat_hist);
} hist SEC(".maps");

static __always_inline unsigned int log2_slot(__u64 v) {
    unsigned int slot = 0;
    for (int i = 0; i < FUNCLAT_LOG2_SLOTS - 1; i++) {
        if (v <= 1)
            break;
        v >>= 1;
        slot++;
    }
    return slot;
}

static __always_inline int on_entry(void) {
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    __u64 now = bpf_ktime_get_ns();
    if (bpf_map_update_elem(&starts, &tid, &now, BPF_ANY) != 0) {
        __u32 zero = 0;
        struct funclat_hist *h = bpf_map_lookup_elem(&hist, &zero);
        if (h)
            h->missed++;
    }
    return 0;
}

static __always_inline int on_exit(void) {
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    __u64 *start = bpf_map_lookup_elem(&starts, &tid);
    if (!start)
        return 0;
    __u64 d = bpf_ktime_get_ns() - *start;
    bpf_map_delete_elem(&starts, &tid);

    __u32 zero = 0;
    struct funclat_hist *h = bpf_map_lookup_elem(&hist, &zero);
    if (!h)
        return 0;
    if (h->count == 0 || d < h->min_ns)
        h->min_ns = d;
    if (d > h->max_ns)
        h->max_ns = d;
    h->count++;
    h->sum_ns += d;
    unsigned int slot = log2_slot(d);
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
    return 0;
}

/* The attach target is set by the loader (bpf_program__set_attach_target). */
SEC("fentry/placeholder")
int BPF_PROG(fentry_entry) { return on_entry(); }

SEC("fexit/placeholder")
int BPF_PROG(fexit_exit) { return on_exit(); }

SEC("kprobe")
int BPF_KPROBE(kprobe_entry) { return on_entry(); }

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_exit) { return on_exit(); }
