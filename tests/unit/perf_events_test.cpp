// perf event names, perf stat's scaling, derived metrics and repeat statistics
// (common/perf_events), and the config keys that use them.
#include "common/config.h"
#include "common/perf_events.h"

#include <cmath>
#include <gtest/gtest.h>
#include <linux/perf_event.h>

namespace initbench {
namespace {

PerfEventSpec event(std::string_view name) {
    PerfEventSpec spec;
    EXPECT_EQ(parse_perf_event(name, spec), "") << name;
    return spec;
}

TEST(PerfEvents, SoftwareAndHardwareNamesAndAliases) {
    EXPECT_EQ(event("task-clock").type, PERF_TYPE_SOFTWARE);
    EXPECT_EQ(event("task-clock").config, uint64_t(PERF_COUNT_SW_TASK_CLOCK));
    EXPECT_TRUE(event("task-clock").is_clock());
    EXPECT_TRUE(event("cpu-clock").is_clock());
    EXPECT_FALSE(event("page-faults").is_clock());
    EXPECT_EQ(event("cs").name, "context-switches");
    EXPECT_EQ(event("faults").config, uint64_t(PERF_COUNT_SW_PAGE_FAULTS));
    EXPECT_EQ(event("migrations").name, "cpu-migrations");
    EXPECT_EQ(event("cycles").type, PERF_TYPE_HARDWARE);
    EXPECT_EQ(event("cpu-cycles").name, "cycles");
    EXPECT_EQ(event("branch-instructions").config, uint64_t(PERF_COUNT_HW_BRANCH_INSTRUCTIONS));
    EXPECT_EQ(event("ref-cycles").config, uint64_t(PERF_COUNT_HW_REF_CPU_CYCLES));
}

TEST(PerfEvents, CacheEventsEncodeCacheOpAndResult) {
    auto e = event("L1-dcache-load-misses");
    EXPECT_EQ(e.type, PERF_TYPE_HW_CACHE);
    EXPECT_EQ(e.config, uint64_t(PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)));
    EXPECT_EQ(event("LLC-stores").config,
              uint64_t(PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_WRITE << 8)));
    EXPECT_EQ(
        event("dTLB-prefetch-misses").config,
        uint64_t(PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_PREFETCH << 8) | (1 << 16)));
    EXPECT_EQ(event("l1-icache-loads").name, "L1-icache-loads"); // perf ignores case
    PerfEventSpec bad;
    EXPECT_NE(parse_perf_event("L1-dcache-lods", bad), "");
    EXPECT_NE(parse_perf_event("L2-dcache-loads", bad), "");
}

TEST(PerfEvents, RawEventsAndModifiers) {
    auto raw = event("r01c2");
    EXPECT_EQ(raw.type, PERF_TYPE_RAW);
    EXPECT_EQ(raw.config, 0x1c2u);
    auto u = event("cycles:u");
    EXPECT_TRUE(u.exclude_kernel);
    EXPECT_FALSE(u.exclude_user);
    EXPECT_EQ(u.name, "cycles:u");
    EXPECT_EQ(u.base, "cycles");
    EXPECT_TRUE(event("cs:k").exclude_user);
    PerfEventSpec bad;
    EXPECT_NE(parse_perf_event("r", bad), "");
    EXPECT_NE(parse_perf_event("rxyz", bad), "");
    EXPECT_NE(parse_perf_event("r12345678901234567", bad), ""); // more than 64 bits
    EXPECT_NE(parse_perf_event("cycles:x", bad), "");
    EXPECT_NE(parse_perf_event("cyclez", bad), "");
    EXPECT_NE(parse_perf_event("", bad), "");
}

TEST(PerfEvents, DefaultExpandsToPerfStatsSetWithoutRepeats) {
    auto events = expand_perf_items({"default", "cs", "cache-misses"});
    ASSERT_EQ(events.size(), 9u);
    EXPECT_EQ(events[0].name, "task-clock");
    EXPECT_EQ(events[1].name, "context-switches");
    EXPECT_EQ(events[7].name, "branch-misses");
    EXPECT_EQ(events[8].name, "cache-misses");
    EXPECT_EQ(check_perf_item("default"), "");
    EXPECT_NE(check_perf_item("defaults"), "");
}

TEST(PerfEvents, ScalingFollowsEnabledOverRunning) {
    auto full = scale_reading({1000, 50, 50});
    EXPECT_TRUE(full.counted);
    EXPECT_EQ(full.value, 1000u);
    EXPECT_DOUBLE_EQ(full.running_pct, 100.0);
    auto half = scale_reading({1000, 100, 25}); // multiplexed: ran a quarter of the time
    EXPECT_EQ(half.value, 4000u);
    EXPECT_DOUBLE_EQ(half.running_pct, 25.0);
    auto never = scale_reading({0, 100, 0});
    EXPECT_FALSE(never.counted); // "not counted", never a 0
    EXPECT_FALSE(scale_reading({}).counted);
    auto sum = sum_readings({{10, 100, 100}, {30, 100, 50}});
    EXPECT_EQ(sum.value, 40u);
    EXPECT_EQ(scale_reading(sum).value, 53u); // 40 * 200 / 150, rounded
}

TEST(PerfEvents, RunStatsAsPerfStatR) {
    auto s = run_stats({10, 12, 14, 16});
    EXPECT_EQ(s.n, 4u);
    EXPECT_DOUBLE_EQ(s.mean, 13);
    const double sd = std::sqrt((9 + 1 + 1 + 9) / 3.0);
    EXPECT_DOUBLE_EQ(s.stddev, sd);
    EXPECT_DOUBLE_EQ(s.rel_stderr_pct, 100 * sd / 2 / 13); // stddev / sqrt(n) / mean
    auto one = run_stats({5});
    EXPECT_DOUBLE_EQ(one.mean, 5);
    EXPECT_EQ(one.stddev, 0);
    EXPECT_EQ(run_stats({}).n, 0u);
    EXPECT_EQ(run_stats({0, 0}).rel_stderr_pct, 0); // no division by a zero mean
}

TEST(PerfEvents, DerivedMetricsAsPerfStatPrintsThem) {
    std::vector<PerfEventSpec> specs;
    for (auto n : {"task-clock", "context-switches", "cycles", "instructions", "branches",
                   "branch-misses", "L1-dcache-loads", "L1-dcache-load-misses", "cycles:u"})
        specs.push_back(event(n));
    std::vector<EventMean> means;
    const double values[] = {2e9, 400, 4e9, 6e9, 1e9, 2e7, 1e6, 5e4, 3e9};
    for (size_t i = 0; i < specs.size(); ++i)
        means.push_back({&specs[i], values[i]});
    auto d = derive_metrics(means, 1.0);
    ASSERT_TRUE(d[0] && d[1] && d[2] && d[3] && d[4] && d[5] && d[7]);
    EXPECT_DOUBLE_EQ(d[0]->value, 2.0);
    EXPECT_EQ(d[0]->unit, "CPUs utilized");
    EXPECT_DOUBLE_EQ(d[1]->value, 200.0); // per second of task-clock
    EXPECT_EQ(d[1]->unit, "/sec");
    EXPECT_DOUBLE_EQ(d[2]->value, 2.0);
    EXPECT_EQ(d[2]->unit, "GHz");
    EXPECT_DOUBLE_EQ(d[3]->value, 1.5);
    EXPECT_EQ(d[3]->unit, "insn per cycle");
    EXPECT_DOUBLE_EQ(d[5]->value, 2.0);
    EXPECT_EQ(d[5]->unit, "% of all branches");
    EXPECT_DOUBLE_EQ(d[7]->value, 5.0);
    EXPECT_EQ(d[7]->unit, "% of all L1-dcache accesses");
    EXPECT_FALSE(d[8]); // no task-clock:u to relate cycles:u to
}

TEST(PerfEvents, NoDerivedMetricFromAnUncountedEvent) {
    auto instructions = event("instructions"), cycles = event("cycles");
    auto d = derive_metrics({{&instructions, 100.0}, {&cycles, std::nullopt}}, 1.0);
    EXPECT_FALSE(d[0]);
    EXPECT_FALSE(d[1]);
}

TEST(PerfEvents, CpuLists) {
    EXPECT_EQ(parse_cpu_list("0"), std::vector<unsigned>{0});
    EXPECT_EQ(parse_cpu_list("0-3,5"), (std::vector<unsigned>{0, 1, 2, 3, 5}));
    EXPECT_EQ(parse_cpu_list("5,1-2,2"), (std::vector<unsigned>{1, 2, 5}));
    for (auto bad : {"", "3-1", "a", "1,", "-1", "1-", "99999"})
        EXPECT_FALSE(parse_cpu_list(bad)) << bad;
}

TEST(PerfEvents, CommandWords) {
    std::vector<std::string> argv;
    EXPECT_EQ(split_command("  busybox  find /sys -name 'a b' ", argv), "");
    EXPECT_EQ(argv, (std::vector<std::string>{"busybox", "find", "/sys", "-name", "a b"}));
    EXPECT_EQ(split_command("sh -c \"echo 'x'\" ''", argv), "");
    EXPECT_EQ(argv, (std::vector<std::string>{"sh", "-c", "echo 'x'", ""}));
    EXPECT_NE(split_command("echo 'open", argv), "");
    EXPECT_NE(split_command("   ", argv), "");
}

TEST(PerfEvents, ConfigKeysCheckTheirValues) {
    auto cfg = parse_config("initbench.perf=default,cs:u initbench.perf.scope=system "
                            "initbench.cmd=\"busybox true\" initbench.repeat=20 initbench.pin=0-1",
                            nullptr);
    ASSERT_TRUE(cfg.ok()) << cfg.errors[0].describe();
    EXPECT_EQ(cfg.config.list("perf"), (std::vector<std::string>{"default", "cs:u"}));
    EXPECT_EQ(cfg.config.str("cmd"), "busybox true");
    EXPECT_EQ(cfg.config.uint("repeat"), 20u);
    for (auto bad : {"initbench.perf=cyclez", "initbench.perf.scope=cpu", "initbench.cmd=\"'x\"",
                     "initbench.module=x.ko", "initbench.pin=1-0", "initbench.repeat=0"}) {
        auto r = parse_config(bad, nullptr);
        EXPECT_FALSE(r.ok()) << bad;
    }
}

} // namespace
} // namespace initbench
