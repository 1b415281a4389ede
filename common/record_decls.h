// The declarations behind common/record_types.h: one RecordType per record type the guest
// writes (each probe kind and command kind as one), as constant tables, so that a writer's
// metric name is checked when it is compiled. docs/schema/ describes the same records, and
// tests/unit/record_types_test.cpp checks that the two agree.
#pragma once

#include <span>
#include <string_view>

namespace initbench {

// A metric. Its name is the dotted path of its value in the record as versions 1 and 2 wrote
// it, and its key in "metrics" from version 3 on, so that old and new records pair. A "*"
// segment stands for an entry's name: a kernel thread's comm, a perf event, a CPU (a '.' in
// it written '_').
struct MetricDecl {
    std::string_view name;
    // "": each entry's own, given by the writer (a perf event's; in versions 1 and 2 the
    // "unit" beside the value, and "count" where that is empty).
    std::string_view unit;
    std::string_view better; // "higher" | "lower"; "": each entry's own, given by the writer
    std::string_view agg = "amean";
    bool headline = false; // a KTAP/LAVA test case of its own (common/summary.cpp)
    // Non-empty: what the last "*" may be (schedstat's fields of the layout it knows).
    std::span<const std::string_view> fields = {};
};

// A list of objects in a record, and the field that names each entry for a "*".
struct EntryName {
    std::string_view list, key;
};

enum class HistogramShape {
    log2,  // [[lower bound, count], ...], non-empty slots only
    linear // {"min", "step", "buckets": [...], "under", "over", "unit"}
};
struct HistogramDecl {
    std::string_view field;
    std::string_view unit; // "": the histogram's own "unit"
    HistogramShape shape;
};

struct RecordType {
    std::string_view type; // "probe", "phase", "command" ...
    std::string_view kind; // the probe ("funclat"), the command's kind ("exec"); "" for none
    std::span<const std::string_view> identity;   // string fields: what it measures
    std::span<const std::string_view> dimensions; // number fields: which of a phase's records
    std::span<const MetricDecl> metrics;
    std::span<const HistogramDecl> histograms = {};
    std::span<const EntryName> entries = {};
    // Phase records: the load names its metrics, each with its unit, better and agg.
    bool load_metrics = false;
    // Derived from other records, for people and labs (the summary): never compared.
    bool derived = false;
};

namespace record_decls {

using sv = std::string_view;

// Counts in a window of fixed length: for the calls of a function under a load, more is
// faster. Latencies, misses, drops and the kernel's own work: less is better.
inline constexpr MetricDecl kFunclat[] = {
    {"count", "calls", "higher", "amean", true},
    {"avg", "ns", "lower", "amean", true},
    {"max", "ns", "lower", "amean", true},
    {"min", "ns", "lower"},
    {"sum", "ns", "lower"},
    {"entries", "calls", "higher"},
    {"missed", "calls", "lower"},
    {"percentiles.p50", "ns", "lower"},
    {"percentiles.p90", "ns", "lower"},
    {"percentiles.p99", "ns", "lower"},
    {"switched_out.calls", "calls", "lower"},
    {"switched_out.subtracted", "ns", "lower"},
};

inline constexpr MetricDecl kSpan[] = {
    {"count", "spans", "higher", "amean", true},
    {"avg", "ns", "lower", "amean", true},
    {"max", "ns", "lower", "amean", true},
    {"min", "ns", "lower"},
    {"stddev", "ns", "lower"},
    {"unmatched_to", "calls", "lower"},
    {"percentiles.p50", "ns", "lower"},
    {"percentiles.p90", "ns", "lower"},
    {"percentiles.p99", "ns", "lower"},
    {"samples.avg_ns_stddev", "ns", "lower"},
};

// The mm_cid experiment's figures: distinct tasks woken, and the wake-ups.
inline constexpr MetricDecl kWakeups[] = {
    {"threads", "threads", "lower", "amean", true},
    {"processes", "processes", "lower", "amean", true},
    {"mms", "mms", "lower", "amean", true},
    {"wakeups", "wake-ups", "lower", "amean", true},
    {"dropped", "wake-ups", "lower"},
};

// Not clk_tck (a constant of the kernel's) nor a thread's pid (a name, not a measurement).
inline constexpr MetricDecl kKthread[] = {
    {"ticks", "ticks", "lower", "amean", true},
    {"cpu_s", "s", "lower"},
    {"ticks_per_span", "ticks", "lower"},
    {"stime_per_span.avg", "ticks", "lower"}, // the RCU seed's ticks per grace period
    {"threads.*.utime", "ticks", "lower"},
    {"threads.*.stime", "ticks", "lower"},
    {"threads.*.ticks", "ticks", "lower"},
};
inline constexpr EntryName kKthreadEntries[] = {{"threads", "comm"}};

// /proc/schedstat version 15 (the kernel's Documentation/scheduler/sched-stats.rst), in
// the order of its lines; "legacy_zero" is always 0 and never written.
inline constexpr sv kSchedstatCpuFields[] = {"yld_count",  "legacy_zero", "sched_count",
                                             "sched_goidle", "ttwu_count", "ttwu_local",
                                             "rq_cpu_time", "run_delay",  "pcount"};
inline constexpr sv kSchedstatCpuCounts[] = {"yld_count",  "sched_count", "sched_goidle",
                                             "ttwu_count", "ttwu_local",  "pcount"};
inline constexpr sv kSchedstatDomainFields[] = {
    "lb_count_idle",       "lb_balanced_idle",    "lb_failed_idle",       "lb_imbalance_idle",
    "lb_gained_idle",      "lb_hot_gained_idle",  "lb_nobusyq_idle",      "lb_nobusyg_idle",
    "lb_count_busy",       "lb_balanced_busy",    "lb_failed_busy",       "lb_imbalance_busy",
    "lb_gained_busy",      "lb_hot_gained_busy",  "lb_nobusyq_busy",      "lb_nobusyg_busy",
    "lb_count_newidle",    "lb_balanced_newidle", "lb_failed_newidle",    "lb_imbalance_newidle",
    "lb_gained_newidle",   "lb_hot_gained_newidle", "lb_nobusyq_newidle", "lb_nobusyg_newidle",
    "alb_count",           "alb_failed",          "alb_pushed",           "sbe_count",
    "sbe_balanced",        "sbe_pushed",          "sbf_count",            "sbf_balanced",
    "sbf_pushed",          "ttwu_wake_remote",    "ttwu_move_affine",     "ttwu_move_balance"};
// Not "version": the file's layout, not a measurement.
inline constexpr MetricDecl kSchedstat[] = {
    {"cpus.*.rq_cpu_time", "ns", "lower"},
    {"cpus.*.run_delay", "ns", "lower"},
    {"cpus.*.*", "events", "lower", "amean", false, kSchedstatCpuCounts},
    {"domains.*.deltas.*", "events", "lower", "amean", false, kSchedstatDomainFields},
};

inline constexpr MetricDecl kTaskStorageChurn[] = {
    {"created", "task storages", "higher"},
    {"deleted", "task storages", "higher"},
    {"failed", "task storages", "lower"},
};

// A perf event's count, and the figure perf stat prints beside it (its unit and direction
// are the event's: "insn per cycle", "% of all branches"). Not running_pct: how long the
// counter shared the PMU, not what it counted.
inline constexpr MetricDecl kPerf[] = {
    {"elapsed_s", "s", "lower"},
    {"counters.*.value", "", "lower"},
    {"counters.*.derived.value", "", ""},
};
inline constexpr EntryName kCounterEntries[] = {{"counters", "event"}};

// A command's mean over its runs (initbench.repeat).
inline constexpr MetricDecl kCommand[] = {
    {"elapsed_s.mean", "s", "lower"},
    {"counters.*.mean", "", "lower"},
    {"counters.*.derived.value", "", ""},
};

// How long the background command took to say it was ready. Not its pid or exit status.
inline constexpr MetricDecl kBackground[] = {
    {"ready_s", "s", "lower"},
};

inline constexpr sv kProbeOnly[] = {"probe"};
inline constexpr sv kProbeFunction[] = {"probe", "function"};
inline constexpr sv kProbeSpan[] = {"probe", "from", "to"};
inline constexpr sv kKind[] = {"kind"};
inline constexpr HistogramDecl kFunclatHistograms[] = {{"log2", "ns", HistogramShape::log2},
                                                       {"linear", "", HistogramShape::linear}};
inline constexpr HistogramDecl kSpanHistograms[] = {{"log2", "ns", HistogramShape::log2}};

// Phase records carry no dimension: a sweep's value is in the phase's name (tcp-4), and
// the load's "clients" or "groups" repeats it.
inline constexpr RecordType kRecordTypes[] = {
    {.type = "phase", .kind = "", .identity = {}, .dimensions = {}, .metrics = {},
     .load_metrics = true},
    {.type = "probe", .kind = "funclat", .identity = kProbeFunction, .dimensions = {},
     .metrics = kFunclat, .histograms = kFunclatHistograms},
    {.type = "probe", .kind = "span", .identity = kProbeSpan, .dimensions = {}, .metrics = kSpan,
     .histograms = kSpanHistograms},
    {.type = "probe", .kind = "wakeups", .identity = kProbeOnly, .dimensions = {},
     .metrics = kWakeups},
    {.type = "probe", .kind = "kthread", .identity = kProbeOnly, .dimensions = {},
     .metrics = kKthread, .entries = kKthreadEntries},
    {.type = "probe", .kind = "schedstat", .identity = kProbeOnly, .dimensions = {},
     .metrics = kSchedstat},
    {.type = "probe", .kind = "task_storage_churn", .identity = kProbeFunction, .dimensions = {},
     .metrics = kTaskStorageChurn},
    {.type = "probe", .kind = "perf", .identity = kProbeOnly, .dimensions = {}, .metrics = kPerf,
     .entries = kCounterEntries},
    {.type = "command", .kind = "exec", .identity = kKind, .dimensions = {}, .metrics = kCommand,
     .entries = kCounterEntries},
    {.type = "command", .kind = "module", .identity = kKind, .dimensions = {}, .metrics = kCommand,
     .entries = kCounterEntries},
    {.type = "background", .kind = "", .identity = {}, .dimensions = {}, .metrics = kBackground},
    // Each phase's metrics over the rounds, aggregated by their agg.
    {.type = "summary", .kind = "", .identity = {}, .dimensions = {}, .metrics = {},
     .derived = true},
    {.type = "kernel", .kind = "", .identity = kKind, .dimensions = {}, .metrics = {}},
    {.type = "header", .kind = "", .identity = {}, .dimensions = {}, .metrics = {}},
    {.type = "warning", .kind = "", .identity = {}, .dimensions = {}, .metrics = {}},
    {.type = "error", .kind = "", .identity = {}, .dimensions = {}, .metrics = {}},
    {.type = "end", .kind = "", .identity = {}, .dimensions = {}, .metrics = {}},
};

constexpr bool declared_anywhere(std::string_view name) {
    for (const RecordType& t : kRecordTypes)
        for (const MetricDecl& m : t.metrics)
            if (m.name == name)
                return true;
    return false;
}

} // namespace record_decls
} // namespace initbench
