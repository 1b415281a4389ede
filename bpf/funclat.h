/* Shared by funclat.bpf.c and funclat.cpp: the histogram the kernel side fills, one per CPU
 * so that counting never serialises the events it measures. */
#ifndef INITBENCH_FUNCLAT_H
#define INITBENCH_FUNCLAT_H

#define FUNCLAT_LOG2_SLOTS 48     /* 2^47 ns is ~39 hours: enough for anything */
#define FUNCLAT_LIN_MAX_BUCKETS 256
#define FUNCLAT_MAX_THREADS 16384 /* concurrent calls in flight */

/* What is subtracted from a call's duration: nothing, the time the thread was preempted
 * (switched out while runnable), or all the time it was switched out. */
#define FUNCLAT_SUBTRACT_NONE 0
#define FUNCLAT_SUBTRACT_PREEMPT 1
#define FUNCLAT_SUBTRACT_OFFCPU 2

struct funclat_hist {
    unsigned long long count;
    unsigned long long sum_ns;
    unsigned long long min_ns;
    unsigned long long max_ns;
    unsigned long long entries;       /* calls entered; more than count when returns are lost */
    unsigned long long missed;        /* entries whose start could not be stored */
    unsigned long long switched_out;  /* calls during which the thread was switched out */
    unsigned long long subtracted_ns; /* time taken off by the subtraction */
    unsigned long long log2[FUNCLAT_LOG2_SLOTS];
    /* [0] underflow, [1..n] buckets of lin_step from lin_min, [n+1] overflow */
    unsigned long long lin[FUNCLAT_LIN_MAX_BUCKETS + 2];
};

#endif
