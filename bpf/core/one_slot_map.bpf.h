/* SPDX-License-Identifier: GPL-2.0 */
/* A map of one slot at key 0: a probe's global state (BPF_MAP_TYPE_ARRAY) or its per-CPU
 * counters (BPF_MAP_TYPE_PERCPU_ARRAY), which user space zeroes and reads by the same key.
 * ONE_SLOT_MAP declares the map and a function that returns the slot (this CPU's, for a
 * per-CPU map), or NULL: the verifier wants the lookup's result checked. */
#pragma once

#define ONE_SLOT_MAP(map_type, name, value_type, lookup)                                           \
    struct {                                                                                       \
        __uint(type, map_type);                                                                    \
        __uint(max_entries, 1);                                                                    \
        __type(key, __u32);                                                                        \
        __type(value, value_type);                                                                 \
    } name SEC(".maps");                                                                           \
    static __always_inline value_type *lookup(void) {                                              \
        __u32 zero = 0;                                                                            \
        return (value_type *)bpf_map_lookup_elem(&name, &zero);                                  \
    }
