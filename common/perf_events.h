// perf events as `perf stat` names them, and the arithmetic perf stat does on their counts:
// scaling of multiplexed counters, the derived metrics it prints beside them, and statistics
// over repeated runs. No system calls here: bpf/perf/perf_counters.cpp opens the events, and the
// host unit-tests the rest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

struct PerfEventSpec {
    std::string name;      // canonical, modifiers included: "context-switches", "cycles:u"
    std::string base;      // canonical without modifiers: "cycles"
    std::string modifiers; // "", "u" or "k"
    uint32_t type = 0;     // PERF_TYPE_*
    uint64_t config = 0;
    bool exclude_user = false, exclude_kernel = false;
    bool is_clock() const; // task-clock or cpu-clock: counts nanoseconds
};

// perf stat's default set, in its order.
const std::vector<std::string_view>& default_perf_events();

// One event: a software, hardware or hardware-cache name as perf spells it (aliases such as
// "cs" and "faults" too), or a raw PMU event "rNNNN" (hex), with an optional ":u" or ":k".
// Returns why it is refused, or "" and sets `out`.
std::string parse_perf_event(std::string_view text, PerfEventSpec& out);
// The config key's check of one list item: "default" or an event name.
std::string check_perf_item(std::string_view item);
// Expands "default" and drops repeated events. Items must have passed check_perf_item().
std::vector<PerfEventSpec> expand_perf_items(const std::vector<std::string>& items);

// A counter as read(2) returns it with PERF_FORMAT_TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING.
struct PerfReading {
    uint64_t value = 0, time_enabled = 0, time_running = 0;
};
// What perf stat makes of a reading: scaled up by enabled/running when the counter shared
// the PMU with others. A counter that never ran is "not counted", not 0.
struct ScaledCount {
    bool counted = false;
    uint64_t value = 0;
    double running_pct = 0; // time_running / time_enabled
};
ScaledCount scale_reading(const PerfReading& r);
// Sums per-CPU readings (system-wide counting) before scaling, as perf stat -a does.
PerfReading sum_readings(const std::vector<PerfReading>& per_cpu);

// Statistics of one measure over repeated runs (perf stat -r N).
struct RunStats {
    size_t n = 0;
    double mean = 0;
    double stddev = 0;         // sample standard deviation (n - 1)
    double rel_stderr_pct = 0; // perf's "+- x%": the standard error of the mean, relative
};
RunStats run_stats(const std::vector<double>& values);

// The comment perf stat prints beside a counter: "insn per cycle", "GHz", "of all branches".
struct DerivedMetric {
    double value = 0;
    std::string unit;
};
// Which way of a derived metric is better: "higher" for insn per cycle, GHz and CPUs
// utilized (work done), "lower" for the rest (misses, idle cycles, events per second).
std::string_view derived_better(std::string_view unit);
struct EventMean {
    const PerfEventSpec* spec = nullptr;
    std::optional<double> mean; // none when unsupported or never counted
};
// The derived metric of events[i] computed from the means, or none. `elapsed_s` is the wall
// time of one run (for "CPUs utilized").
std::vector<std::optional<DerivedMetric>> derive_metrics(const std::vector<EventMean>& events,
                                                         double elapsed_s);

// A CPU list as in /sys/devices/system/cpu/online: "0-3,5". None if malformed.
std::optional<std::vector<unsigned>> parse_cpu_list(std::string_view text);
std::string check_cpu_list(std::string_view text);

// A command as written in initbench.cmd: words split at blanks; '...' and "..." group words
// (no escapes, no shell). Returns why it is refused, or "" and fills `argv`.
std::string split_command(std::string_view text, std::vector<std::string>& argv);
std::string check_command(std::string_view text);

} // namespace initbench
