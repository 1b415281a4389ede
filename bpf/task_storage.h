/* Shared by task_storage.bpf.c and task_storage.cpp. */
#ifndef INITBENCH_TASK_STORAGE_H
#define INITBENCH_TASK_STORAGE_H

#define TASK_STORAGE_COMM_PREFIX "ib-sleep" /* the sleep load names its tasks so */
#define TASK_STORAGE_COMM_PREFIX_LEN 8

/* One counter per outcome, so that each call adds to exactly one: user space reads the
 * counters while calls run on other CPUs, and a "created" and a "deleted" counted apart
 * were seen one apart in such a read. created = churned + delete_failed, deleted = churned. */
struct task_storage_counts {
    unsigned long long churned;       /* created and deleted again */
    unsigned long long delete_failed; /* created, the delete refused */
    unsigned long long create_failed; /* no storage */
};

#endif
