/* Shared by span.bpf.c and span.cpp. */
#ifndef INITBENCH_SPAN_H
#define INITBENCH_SPAN_H

#define SPAN_LOG2_SLOTS 48

struct span_stats {
    unsigned long long count;
    unsigned long long sum_ns;
    unsigned long long sum_sq_us2; /* squares in µs² so that long spans do not overflow */
    unsigned long long min_ns;
    unsigned long long max_ns;
    unsigned long long unmatched_to; /* TO events with no FROM before them */
    unsigned long long log2[SPAN_LOG2_SLOTS];
};

#endif
