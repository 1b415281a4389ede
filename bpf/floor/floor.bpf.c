// SPDX-License-Identifier: GPL-2.0
/* The floor probe's kernel side: an entry and a return program that do nothing. Their run
 * time, and what they add to each call of the function, is the least a probe there costs. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/core/function_hooks.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline int nothing(void) { return 0; }

ENTRY_HOOKS(entry, nothing)
EXIT_HOOKS(exit, nothing)

/* A raw tracepoint's floor (wakeups' tp_btf/sched_wakeup): the loader names the tracepoint. */
SEC("tp_btf")
int BPF_PROG(tp_btf_nothing) { return nothing(); }
