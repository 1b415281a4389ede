/* Shared by funclat.bpf.c and funclat_switch.bpf.c: the calls in flight, and what a context
 * switch does to them. The BTF-typed sched_switch program lives in an object of its own
 * because libbpf wants vmlinux BTF for every object with CO-RE relocations; without BTF,
 * funclat.bpf.c's classic tracepoint program does the same work. Both objects' `calls` maps
 * are one map (the loader reuses the fd). */
#ifndef INITBENCH_FUNCLAT_CALLS_BPF_H
#define INITBENCH_FUNCLAT_CALLS_BPF_H

#include <stdbool.h>

#include "bpf/funclat/funclat_probe.h"

const volatile unsigned int subtract = FUNCLAT_SUBTRACT_NONE;

struct call {
    __u64 start;
    __u64 out_since;   /* when the thread was switched out, 0 while on CPU */
    __u64 out_total;   /* switched-out time to subtract so far */
    __u32 switches;
};

/* A thread's slot stays after its call returns (start = 0) and is written in place by its
 * next call: a hash insert and delete a call cost more than the rest of funclat's work
 * (under icount, 28 900 ns a call against 18 900 in place). LRU, so that threads that
 * come and go (a fork load's children) cannot fill the map: once it is full, the kernel
 * reuses the slots it has seen least used (and a call in flight that loses its slot then
 * goes uncounted, which takes more than FUNCLAT_MAX_THREADS threads calling). */
struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, FUNCLAT_MAX_THREADS);
    __type(key, __u32); /* thread id */
    __type(value, struct call);
} calls SEC(".maps");

/* prev is switched out (counted when the subtraction asks for it), next comes back in. */
static __always_inline void account_switch(__u32 prev_tid, __u32 next_tid, bool preempted) {
    __u64 now = bpf_ktime_get_ns();
    struct call *c = bpf_map_lookup_elem(&calls, &prev_tid);
    if (c && c->start && (subtract == FUNCLAT_SUBTRACT_OFFCPU || preempted)) {
        c->out_since = now;
        c->switches++;
    }
    c = bpf_map_lookup_elem(&calls, &next_tid);
    if (c && c->out_since) {
        c->out_total += now - c->out_since;
        c->out_since = 0;
    }
}

#endif
