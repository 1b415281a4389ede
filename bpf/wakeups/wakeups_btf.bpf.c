// SPDX-License-Identifier: GPL-2.0
/* Which threads, processes and address spaces (mms) are woken: the BTF-typed tracepoint
 * gives the task itself (tgid, mm). Counted and cleared by the loader at phase boundaries.
 * With user_only (initbench.wakeups.tasks=user) only tasks with an mm count, as the mm_cid
 * seed's bpftrace did; it hooked try_to_wake_up, which counts every call, woken or not
 * (fentry_ttwu; the loader falls back to the tracepoint, actual wake-ups only). */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/wakeups/wakeups_seen.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile int user_only = 0; /* set by the loader before load */

struct task_struct {
    int pid;
    int tgid;
    void *mm;
} __attribute__((preserve_access_index));

/* Both program types get the task as a BTF-typed pointer, so its fields are read directly
 * (one load each, relocated by CO-RE) rather than through bpf_probe_read_kernel calls. */
static __always_inline int count_task(struct task_struct *p) {
    __u64 mm = (__u64)p->mm;
    if (user_only && !mm)
        return 0;
    count_woken(p->pid, p->tgid, mm);
    return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(btf_wakeup, struct task_struct *p) { return count_task(p); }

SEC("fentry/try_to_wake_up")
int BPF_PROG(fentry_ttwu, struct task_struct *p) { return count_task(p); }
