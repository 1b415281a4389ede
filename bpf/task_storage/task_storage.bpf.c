// SPDX-License-Identifier: GPL-2.0
/* Task-storage churn, as in the RCU Tasks Trace benchmark: each time a task of the sleep
 * load wakes (or each time a chosen function is called), task-local storage is created on it
 * and deleted again. Freeing that storage goes through RCU Tasks Trace, which is what the
 * benchmark loads. */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/core/function_hooks.bpf.h"
#include "bpf/core/one_slot_map.bpf.h"
#include "bpf/task_storage/task_storage_probe.h"

char LICENSE[] SEC("license") = "GPL";

struct task_struct {
    char comm[16];
} __attribute__((preserve_access_index));

struct {
    __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, int);
    __type(value, __u64);
} store SEC(".maps");

ONE_SLOT_MAP(BPF_MAP_TYPE_PERCPU_ARRAY, counts, struct task_storage_counts, this_cpu_counts)

/* Creates the task's storage and deletes it again: each create-delete pair frees storage
 * through RCU Tasks Trace. */
static __always_inline int churn_task(struct task_struct *p) {
    struct task_storage_counts *c = this_cpu_counts();
    if (!c)
        return 0;
    __u64 *v = bpf_task_storage_get(&store, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!v) {
        c->create_failed++;
        return 0;
    }
    if (bpf_task_storage_delete(&store, p) == 0)
        c->churned++;
    else
        c->delete_failed++;
    return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(churn, struct task_struct *p) {
    char comm[TASK_STORAGE_COMM_PREFIX_LEN];
    const char prefix[] = TASK_STORAGE_COMM_PREFIX;
    bpf_probe_read_kernel(comm, sizeof comm, p->comm);
    for (int i = 0; i < TASK_STORAGE_COMM_PREFIX_LEN; i++)
        if (comm[i] != prefix[i])
            return 0;
    return churn_task(p);
}

/* initbench.task_storage_churn.on=FUNCTION: on the current task at each call, as the RCU
 * seed's program did on getpgid. Kprobe programs have the task storage helpers and
 * bpf_get_current_task_btf too in 6.1 (bpf_tracing_func_proto). */
static __always_inline int churn_current(void) { return churn_task(bpf_get_current_task_btf()); }

ENTRY_HOOKS(churn, churn_current)
