// SPDX-License-Identifier: GPL-2.0
/* Which threads, processes and address spaces (mms) are woken: one entry per distinct key in
 * three hash sets, counted and cleared by the loader at phase boundaries. The BTF-typed
 * tracepoint gives the task itself (tgid, mm); without BTF the classic tracepoint gives
 * only the thread id. */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/wakeups.h"

char LICENSE[] SEC("license") = "GPL";

struct task_struct {
    int pid;
    int tgid;
    void *mm;
} __attribute__((preserve_access_index));

#define KEY_SET(name, key_type)                                                                        \
    struct {                                                                                       \
        __uint(type, BPF_MAP_TYPE_HASH);                                                           \
        __uint(max_entries, WAKEUPS_MAX_KEYS);                                                     \
        __type(key, key_type);                                                                     \
        __type(value, __u8);                                                                       \
    } name SEC(".maps")

KEY_SET(threads, __u32);
KEY_SET(processes, __u32);
KEY_SET(mms, __u64);

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct wakeup_counts);
} counts SEC(".maps");

static __always_inline void add(void *set, const void *key, struct wakeup_counts *c) {
    __u8 one = 1;
    /* BPF_NOEXIST: an existing key is not an error worth counting; a full map is. */
    if (bpf_map_update_elem(set, key, &one, BPF_NOEXIST) == -7 /* E2BIG */ && c)
        c->dropped++;
}

static __always_inline struct wakeup_counts *this_cpu_counts(void) {
    __u32 zero = 0;
    struct wakeup_counts *c = bpf_map_lookup_elem(&counts, &zero);
    if (c)
        c->wakeups++;
    return c;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(btf_wakeup, struct task_struct *p) {
    struct wakeup_counts *c = this_cpu_counts();
    __u32 pid = BPF_CORE_READ(p, pid);
    __u32 tgid = BPF_CORE_READ(p, tgid);
    __u64 mm = (__u64)BPF_CORE_READ(p, mm);
    add(&threads, &pid, c);
    add(&processes, &tgid, c);
    if (mm) /* kernel threads have none */
        add(&mms, &mm, c);
    return 0;
}

/* The classic tracepoint's record: the common header, comm, pid, prio, target_cpu. */
struct sched_wakeup_record {
    unsigned long long common;
    char comm[16];
    int pid;
    int prio;
    int target_cpu;
};

SEC("tracepoint/sched/sched_wakeup")
int classic_wakeup(struct sched_wakeup_record *r) {
    struct wakeup_counts *c = this_cpu_counts();
    __u32 pid = r->pid;
    add(&threads, &pid, c);
    return 0;
}
