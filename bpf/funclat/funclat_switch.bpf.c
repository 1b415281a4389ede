// SPDX-License-Identifier: GPL-2.0
/* funclat's switched-out time from the BTF-typed sched_switch tracepoint, which knows
 * whether the switch was a preemption. Loaded only when a subtraction is asked for and the
 * kernel has BTF; see funclat_calls.bpf.h. */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/funclat/funclat_calls.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Only the field used, relocated by CO-RE against the running kernel's BTF. */
struct task_struct {
    int pid;
} __attribute__((preserve_access_index));

/* sched_switch's first three arguments have been (preempt, prev, next) since BTF-enabled
 * tracepoints exist; later kernels only appended prev_state. */
SEC("tp_btf/sched_switch")
int BPF_PROG(btf_switch, bool preempt, struct task_struct *prev, struct task_struct *next) {
    /* BTF-typed pointers: each pid is one load, not a bpf_probe_read_kernel call. */
    account_switch(prev->pid, next->pid, preempt);
    return 0;
}
