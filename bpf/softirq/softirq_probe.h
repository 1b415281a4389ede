/* softirq: how long the kernel's softirq handlers ran (softirq_entry to softirq_exit) and how
 * long a raised softirq waited before its handler started (softirq_raise to softirq_entry),
 * per vector (timer, net_rx, rcu...): the time a patch to interrupt or network paths moves.
 *
 * The probe's declaration, which the host builds too: in C, what its kernel side
 * (softirq.bpf.c) keeps per CPU; in C++, its key, its record's description and its maker
 * (softirq.cpp). */
#pragma once

/* The kernel's softirq vectors, in the order of its enum (include/linux/interrupt.h):
 * HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER RCU. */
#define SOFTIRQ_VECTORS 10
#define SOFTIRQ_LOG2_SLOTS 40 /* 2^39 ns is ~9 minutes: more than any handler runs */

struct softirq_vector {
    unsigned long long count;   /* handler runs that ended in the window */
    unsigned long long time_ns; /* their time, entry to exit */
    unsigned long long max_ns;
    unsigned long long waits;   /* runs whose raise was seen: raise to entry */
    unsigned long long wait_ns;
    unsigned long long wait_max_ns;
};

/* One CPU's: a CPU runs one softirq handler at a time, and a softirq runs on the CPU that
 * raised it, so the state of each needs no lock. */
struct softirq_cpu {
    unsigned long long entry_ns;                   /* start of the handler running, 0 if none */
    unsigned long long raised_ns[SOFTIRQ_VECTORS]; /* first raise not yet run, 0 if none */
    struct softirq_vector vec[SOFTIRQ_VECTORS];
    unsigned long long log2[SOFTIRQ_LOG2_SLOTS];   /* run times of every vector */
};

#ifdef __cplusplus
#include "bpf/core/probe.h"
#include "common/probe_decl.h"

#include <string_view>

namespace initbench {

// The vectors' names as /proc/softirqs spells them, lower case.
inline constexpr std::string_view kSoftirqVectorNames[SOFTIRQ_VECTORS] = {
    "hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet", "sched", "hrtimer", "rcu"};

inline constexpr KeySpec softirq_keys[] = {
    plain_key("softirq", Kind::flag, "0",
              "softirq handlers' run time and raise-to-run wait, per vector (irq tracepoints)"),
};

// Time spent in softirqs under the same load in a window of fixed length: less is better.
inline constexpr MetricDecl kSoftirqOwnMetrics[] = {
    {"count", "runs", "lower", "amean", true},  {"time", "ns", "lower", "amean", true},
    {"avg", "ns", "lower", "amean", true},      {"max", "ns", "lower"},
    {"wait.avg", "ns", "lower", "amean", true}, {"wait.max", "ns", "lower"},
    {"vectors.*.count", "runs", "lower"},       {"vectors.*.time", "ns", "lower"},
    {"vectors.*.avg", "ns", "lower"},           {"vectors.*.wait_avg", "ns", "lower"},
};
inline constexpr auto kSoftirqMetrics = with_percentiles_and_cost(kSoftirqOwnMetrics);
inline constexpr EntryName kSoftirqEntries[] = {{"vectors", "vector"}};
inline constexpr HistogramDecl kSoftirqHistograms[] = {{"log2", "ns", HistogramShape::log2}};
inline constexpr RecordType softirq_record = probe_record("softirq",
    {.metrics = kSoftirqMetrics, .histograms = kSoftirqHistograms, .entries = kSoftirqEntries});
inline constexpr ProbeDecl softirq_declaration = {&softirq_record, softirq_keys};

} // namespace initbench
#endif
