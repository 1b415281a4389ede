/* Shared by wakeups.bpf.c and wakeups.cpp. */
#ifndef INITBENCH_WAKEUPS_H
#define INITBENCH_WAKEUPS_H

#define WAKEUPS_MAX_KEYS 65536 /* distinct threads/processes/mms per phase */

struct wakeup_counts {
    unsigned long long wakeups; /* every event counted (sched_wakeup, or try_to_wake_up call) */
    unsigned long long dropped; /* distinct keys that did not fit in the maps */
};

#endif
