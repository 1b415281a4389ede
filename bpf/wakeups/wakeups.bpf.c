// SPDX-License-Identifier: GPL-2.0
/* Which threads are woken, from the classic sched_wakeup tracepoint, which gives only the
 * thread id: for kernels without BTF. Nothing here has CO-RE relocations, so libbpf loads it
 * without vmlinux BTF; wakeups_btf.bpf.c is the full probe. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/wakeups/wakeups_sets.bpf.h"

char LICENSE[] SEC("license") = "GPL";

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
