/* Shared by wakeups.bpf.c and wakeups_btf.bpf.c: three hash sets of distinct woken threads,
 * processes and mms, and per-CPU counts. The two objects are alternatives (the BTF one is
 * loaded when the kernel has BTF), each with maps of its own. */
#ifndef INITBENCH_WAKEUPS_SETS_BPF_H
#define INITBENCH_WAKEUPS_SETS_BPF_H

#include "bpf/core/one_slot_map.bpf.h"
#include "bpf/wakeups/wakeups_probe.h"

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

ONE_SLOT_MAP(BPF_MAP_TYPE_PERCPU_ARRAY, counts, struct wakeup_counts, this_cpu_slot)

static __always_inline void add(void *set, const void *key, struct wakeup_counts *c) {
    /* Most wake-ups are of tasks already in the set. A lookup takes no lock (and the JIT
     * inlines it); an update locks the key's bucket even when it only finds the key there. */
    if (bpf_map_lookup_elem(set, key))
        return;
    __u8 one = 1;
    /* BPF_NOEXIST: a key another CPU added meanwhile is not an error worth counting; a full
     * map is. */
    if (bpf_map_update_elem(set, key, &one, BPF_NOEXIST) == -7 /* E2BIG */ && c)
        c->dropped++;
}

static __always_inline struct wakeup_counts *this_cpu_counts(void) {
    struct wakeup_counts *c = this_cpu_slot();
    if (c)
        c->wakeups++;
    return c;
}

#endif
