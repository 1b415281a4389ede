// SPDX-License-Identifier: GPL-2.0
/* The walk-through's toy probe, its kernel side: one count per CPU of sched_process_exit. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/core/one_slot_map.bpf.h"
#include "bpf/exits/exits_probe.h"

char LICENSE[] SEC("license") = "GPL";

ONE_SLOT_MAP(BPF_MAP_TYPE_PERCPU_ARRAY, cpus, struct exits_cpu, this_cpu)

SEC("raw_tp/sched_process_exit")
int on_exit(void *ctx) {
    struct exits_cpu *c = this_cpu();
    if (c)
        c->exits++;
    return 0;
}
