/* Shared by task_storage.bpf.c and task_storage.cpp. */
#ifndef INITBENCH_TASK_STORAGE_H
#define INITBENCH_TASK_STORAGE_H

#define TASK_STORAGE_COMM_PREFIX "ib-sleep" /* the sleep load names its tasks so */
#define TASK_STORAGE_COMM_PREFIX_LEN 8

struct task_storage_counts {
    unsigned long long created;
    unsigned long long deleted;
    unsigned long long failed;
};

#endif
