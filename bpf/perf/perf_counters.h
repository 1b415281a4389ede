// perf_event_open counters as perf stat uses them: a set of events counted on one task (and
// the tasks it creates from then on) or on every given CPU (system-wide), read with perf
// stat's scaling. An event the kernel refuses is "not supported" with its errno, never a 0.
#pragma once

#include "common/config.h"
#include "common/perf_events.h"
#include "common/record_types.h"
#include "sys/sys.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace initbench {

struct CounterTarget {
    pid_t pid = 0;        // task scope: 0 is the calling thread
    bool inherit = false; // task scope: count the tasks it creates from now on
    bool enable_on_exec = false;
    std::vector<unsigned> cpus; // non-empty: system-wide, one counter per CPU (pid ignored)
};

// One event's outcome: why it could not be opened, or what it counted.
struct CounterValue {
    const PerfEventSpec* spec = nullptr;
    int open_errno = 0; // the event could not be opened
    ScaledCount total;
    std::vector<ScaledCount> per_cpu; // system-wide only
};

class CounterSet {
public:
    // Opens every event, disabled (or armed to start at exec). An event that the kernel
    // refuses is kept with its errno.
    static CounterSet open(const std::vector<PerfEventSpec>& events, const CounterTarget& target);
    CounterSet() = default;

    void enable();
    void disable();
    std::vector<CounterValue> read() const;
    bool any_open() const;
    // The first event's errno, or 0: to refuse a set that cannot count at all.
    int first_errno() const;

private:
    struct Counter {
        const PerfEventSpec* spec = nullptr;
        int open_errno = 0;
        std::vector<Fd> fds; // one, or one per CPU
    };
    std::vector<Counter> counters_;
    bool system_ = false;
};

// The "supported": false entry of an event that could not be opened.
nlohmann::json unsupported_counter_json(const PerfEventSpec& spec, int err);
// The start of a counted event's entry: name, unit and the derived metric if there is one.
nlohmann::json counter_json(const PerfEventSpec& spec, const std::optional<DerivedMetric>& derived);
inline constexpr const char* kNotCounted = "not counted: the counter never ran";
// One record's "counters" array from a single measurement, derived metrics included.
nlohmann::json counters_json(const std::vector<CounterValue>& values, double elapsed_s);

// The metrics of a record's "counters" list: each counted event's `value_key` ("value" over
// a phase's window, "mean" over a command's runs) as `value_metric`, and its derived figure.
void add_counter_metrics(RecordBuilder& b, const nlohmann::json& counters, MetricName value_metric,
                         const char* value_key);

// The events of initbench.perf (with "default" for perf stat's set).
std::vector<PerfEventSpec> configured_events(const Config& config);
// The CPUs counted system-wide: every online one.
std::vector<unsigned> online_cpu_list();
std::string errno_text(int err);

} // namespace initbench
