// The perf instrument's record (bpf/perf/perf_counters): each counted event's metrics through
// the record's description.
#include "common/perf_events.h"
#include "common/record_types.h"
#include "bpf/perf/perf_counters.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

// A perf record's metrics (record v3): each counted event's value and derived figure, by
// the event's name, with its unit and direction; an event that could not be opened or
// never ran gives none, and running_pct is not a metric.
TEST(PerfEvents, CounterMetricsThroughTheRecordsDescription) {
    PerfEventSpec task_clock, cs, cycles, instructions;
    ASSERT_EQ(parse_perf_event("task-clock", task_clock) + parse_perf_event("cs", cs) +
                  parse_perf_event("cycles", cycles) + parse_perf_event("instructions", instructions),
              "");
    std::vector<CounterValue> values = {
        {&task_clock, 0, scale_reading({2'000'000'000, 10, 10}), {}},
        {&cs, 0, scale_reading({300, 10, 10}), {}},
        {&cycles, 2, {}, {}},
        {&instructions, 0, scale_reading({5, 10, 0}), {}}};
    nlohmann::json r{{"type", "probe"}, {"probe", "perf"}};
    r["counters"] = counters_json(values, 1.0);
    RecordBuilder b(declared_type("probe", "perf"), r);
    add_counter_metrics(b, r["counters"], "counters.*.value", "value");
    EXPECT_FALSE(r.contains("undeclared_metrics")) << r.dump();
    const auto& m = r["metrics"];
    EXPECT_EQ(m.size(), 4u) << m.dump();
    EXPECT_EQ(m["counters.task-clock.value"]["unit"], "ns");
    EXPECT_EQ(m["counters.task-clock.derived.value"]["unit"], "CPUs utilized");
    EXPECT_EQ(m["counters.task-clock.derived.value"]["better"], "higher");
    EXPECT_EQ(m["counters.context-switches.value"]["unit"], "count");
    EXPECT_EQ(m["counters.context-switches.derived.value"]["better"], "lower");
}

} // namespace
} // namespace initbench
