// SPDX-License-Identifier: GPL-2.0
/* Which threads, processes and address spaces (mms) are woken: the BTF-typed tracepoint
 * gives the task itself (tgid, mm). Counted and cleared by the loader at phase boundaries. */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/wakeups_sets.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct task_struct {
    int pid;
    int tgid;
    void *mm;
} __attribute__((preserve_access_index));

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
