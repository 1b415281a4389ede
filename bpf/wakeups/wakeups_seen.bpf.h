/* The BTF probe's record of what a phase woke. Two arrays indexed by id, sized by the loader
 * to kernel.pid_max and mapped into its memory: `thread_mm` holds, per thread id, the mm the
 * thread was last woken with (THREAD_WITHOUT_MM for a kernel thread, 0 for not woken this
 * phase); `process_flags` one byte per process id. A wake-up of a thread already seen with
 * the same mm is then one inlined array lookup and a compare: its process and its mm were
 * recorded when it was first seen. The three hash sets cost 11.9 times an empty program under
 * icount, a hash and a bucket walk each. The hash sets stay for mms (an address is no index)
 * and for ids above the arrays (kernel.pid_max raised after loading, as a load of many tasks
 * does). */
#ifndef INITBENCH_WAKEUPS_SEEN_BPF_H
#define INITBENCH_WAKEUPS_SEEN_BPF_H

#include "bpf/wakeups/wakeups_sets.bpf.h"

#define THREAD_WITHOUT_MM 1 /* no mm is at address 1 */

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, 1); /* the loader sets kernel.pid_max */
    __type(key, __u32);     /* thread id */
    __type(value, __u64);   /* mm, THREAD_WITHOUT_MM, or 0: not woken this phase */
} thread_mm SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, 1); /* the loader sets kernel.pid_max / 8, rounded up */
    __type(key, __u32);     /* process id / 8 */
    __type(value, __u64);   /* a byte per process id: 1 once woken this phase */
} process_flags SEC(".maps");

/* Records thread `pid` woken with `mark` (its mm, or THREAD_WITHOUT_MM); true unless it was
 * already seen with that mark this phase. */
static __always_inline int mark_thread(__u32 pid, __u64 mark, struct wakeup_counts *c) {
    __u64 *slot = (__u64 *)bpf_map_lookup_elem(&thread_mm, &pid);
    if (!slot) {
        add(&threads, &pid, c);
        return 1;
    }
    if (*slot == mark)
        return 0;
    *slot = mark;
    return 1;
}

static __always_inline void mark_process(__u32 tgid, struct wakeup_counts *c) {
    __u32 word = tgid / 8;
    __u8 *flags = (__u8 *)bpf_map_lookup_elem(&process_flags, &word);
    if (!flags) {
        add(&processes, &tgid, c);
        return;
    }
    /* A byte store leaves its neighbours alone, so CPUs need no atomics to share a word. */
    if (!flags[tgid & 7])
        flags[tgid & 7] = 1;
}

/* One wake-up of thread `pid` of process `tgid`, with address space `mm` (0: none). The
 * loader clears thread_mm last at a phase's start, so that a thread it still finds marked
 * has its process and mm recorded in the new phase too. */
static __always_inline void count_woken(__u32 pid, __u32 tgid, __u64 mm) {
    struct wakeup_counts *c = this_cpu_counts();
    if (!mark_thread(pid, mm ? mm : THREAD_WITHOUT_MM, c))
        return;
    mark_process(tgid, c);
    if (mm)
        add(&mms, &mm, c);
}

#endif
