/* funclat: the latency of one kernel function per call (fentry/fexit, or kprobes where the
 * kernel cannot do fentry), optionally without the time the thread was switched out.
 *
 * The probe's declaration, which the host builds too: in C, the histogram its kernel side
 * (funclat.bpf.c) fills, one per CPU so that counting never serialises the events it
 * measures; in C++, its keys, its record's description and its maker (funclat.cpp). */
#pragma once

#define FUNCLAT_LOG2_SLOTS 48     /* 2^47 ns is ~39 hours: enough for anything */
#define FUNCLAT_LIN_MAX_BUCKETS 256
#define FUNCLAT_MAX_THREADS 16384 /* slots for calls in flight: a power of two (funclat_calls.bpf.h) */

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
    unsigned long long missed;        /* calls in flight that lost their slot to another thread's */
    unsigned long long switched_out;  /* calls during which the thread was switched out */
    unsigned long long subtracted_ns; /* time taken off by the subtraction */
    unsigned long long log2[FUNCLAT_LOG2_SLOTS];
    /* [0] underflow, [1..n] buckets of lin_step from lin_min, [n+1] overflow */
    unsigned long long lin[FUNCLAT_LIN_MAX_BUCKETS + 2];
};

#ifdef __cplusplus
#include "bpf/core/probe.h"
#include "common/linear_hist.h"
#include "common/probe_decl.h"

#include <string>

namespace initbench {

inline constexpr KeySpec funclat_keys[] = {
    plain_key("funclat", Kind::list, "", "kernel functions whose latency is measured"),
    checked_key(plain_key("funclat.hist", Kind::string, "0:1000:50:us",
                          "funclat's linear histogram MIN:MAX:STEP:UNIT (unit ns, us or ms)"),
                [](std::string_view text) {
                    std::string why;
                    parse_linear_hist(text, why);
                    return why;
                }),
    enum_key("funclat.subtract", "none", "none|preempt|offcpu",
             "take off each call's time preempted (preempt) or switched out (offcpu)"),
};

// Counts say how much happened in the window, not whether the kernel did better: compare
// shows their changes as changes ("none"). Latencies, misses and the time switched out:
// less is better.
inline constexpr MetricDecl kFunclatOwnMetrics[] = {
    {"count", "calls", "none", "amean", true},
    {"avg", "ns", "lower", "amean", true},
    {"max", "ns", "lower", "amean", true},
    {"min", "ns", "lower"},
    {"sum", "ns", "lower"},
    {"entries", "calls", "none"},
    {"missed", "calls", "lower"},
    {"switched_out.calls", "calls", "lower"},
    {"switched_out.subtracted", "ns", "lower"},
};
inline constexpr auto kFunclatMetrics = with_percentiles_and_cost(kFunclatOwnMetrics);
inline constexpr std::string_view kFunclatIdentity[] = {"probe", "function"};
inline constexpr HistogramDecl kFunclatHistograms[] = {{"log2", "ns", HistogramShape::log2},
                                                       {"linear", "", HistogramShape::linear}};
inline constexpr RecordType funclat_record = probe_record("funclat",
    {.metrics = kFunclatMetrics, .identity = kFunclatIdentity, .histograms = kFunclatHistograms});
inline constexpr ProbeDecl funclat_declaration = {&funclat_record, funclat_keys};

struct FunclatOptions {
    LinearHistogramSpec lin;
    std::string mode = "auto";     // auto (fentry, else kprobe) | fentry | kprobe
    std::string subtract = "none"; // none | preempt | offcpu
};

std::unique_ptr<Probe> make_funclat(const std::string& function, const FunclatOptions& options);

} // namespace initbench
#endif
