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
    __u64 start;       /* 0 once the call has returned */
    __u64 out_since;   /* when the thread was switched out, 0 while on CPU */
    __u64 out_total;   /* switched-out time to subtract so far */
    __u32 switches;
    __u32 tid;         /* the thread whose call this is */
};

/* A thread's call lives in the slot of its id modulo FUNCLAT_MAX_THREADS, and says whose it
 * is. An array lookup is a few inlined instructions; the LRU hash this replaces cost more
 * than the rest of funclat's work (under icount, 12 300 ns of programs a call against
 * 7 800 with the array). Two threads whose ids differ by a multiple of FUNCLAT_MAX_THREADS
 * share a slot: when the second enters while the first's call is in flight, the first's
 * call goes uncounted and `missed` says so. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, FUNCLAT_MAX_THREADS);
    __type(key, __u32); /* thread id modulo max_entries */
    __type(value, struct call);
} calls SEC(".maps");

/* The slot `tid` uses (never null: every index below max_entries exists). */
static __always_inline struct call *call_slot(__u32 tid) {
    __u32 index = tid & (FUNCLAT_MAX_THREADS - 1);
    return (struct call *)bpf_map_lookup_elem(&calls, &index);
}

/* `tid`'s call in flight, or null. */
static __always_inline struct call *call_of(__u32 tid) {
    struct call *c = call_slot(tid);
    return c && c->tid == tid && c->start ? c : 0;
}

/* Starts `tid`'s call: 1 when it took the slot from another thread's call in flight (which
 * then goes uncounted), -1 when there is no slot, else 0. */
static __always_inline int call_enter(__u32 tid) {
    struct call *slot = call_slot(tid);
    if (!slot)
        return -1;
    int displaced = slot->start && slot->tid != tid;
    *slot = (struct call){.start = bpf_ktime_get_ns(), .out_since = 0, .out_total = 0, .switches = 0, .tid = tid};
    return displaced;
}

struct call_end {
    __u64 duration;    /* entry to return */
    __u64 switched_out; /* of which the thread was switched out, to subtract (<= duration) */
    __u32 switches;
};

/* Ends `tid`'s call in flight; false when it has none (a call that began before the probe
 * attached, or lost its slot). */
static __always_inline bool call_return(__u32 tid, struct call_end *end) {
    struct call *c = call_of(tid);
    if (!c)
        return false;
    end->duration = bpf_ktime_get_ns() - c->start;
    end->switched_out = c->out_total < end->duration ? c->out_total : end->duration;
    end->switches = c->switches;
    c->start = 0;
    return true;
}

/* prev is switched out (counted when the subtraction asks for it), next comes back in. */
static __always_inline void account_switch(__u32 prev_tid, __u32 next_tid, bool preempted) {
    __u64 now = bpf_ktime_get_ns();
    struct call *c = call_of(prev_tid);
    if (c && (subtract == FUNCLAT_SUBTRACT_OFFCPU || preempted)) {
        c->out_since = now;
        c->switches++;
    }
    c = call_of(next_tid);
    if (c && c->out_since) {
        c->out_total += now - c->out_since;
        c->out_since = 0;
    }
}

#endif
