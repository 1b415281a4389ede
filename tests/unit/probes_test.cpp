// The probes' parsers of the kernel's own accounting, and the shared histogram percentiles.
#include "bpf/core/settled_read.h"
#include "bpf/core/setup_times.h"
#include "bpf/kthread/kthread_probe.h"
#include "bpf/schedstat/schedstat_probe.h"
#include "bpf/span/span_samples.h"
#include "common/config.h"
#include "common/histogram.h"

#include <cerrno>
#include <functional>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace initbench;

namespace initbench {
extern const ProbeSpec schedstat_probe; // made by a flag (make_on_flag)
extern const ProbeSpec kthread_probe;   // made from its list (make)
} // namespace initbench

// The runner makes each kind's probes through make_probes_of(), whichever way it declares
// them: a flag probe only when its flag is set, with its set-up timed under its name.
TEST(ProbeSpec, EachKindIsMadeWhenTheConfigurationAsksForIt) {
    auto made = [](const ProbeSpec& spec, const char* cmdline) {
        const ConfigResult cfg = parse_config(cmdline, nullptr);
        EXPECT_TRUE(cfg.ok()) << cmdline;
        std::vector<std::unique_ptr<Probe>> out;
        make_probes_of(spec, cfg.config, out);
        std::vector<std::string> names;
        for (const auto& probe : out)
            names.push_back(probe->name());
        return names;
    };
    using Names = std::vector<std::string>;
    EXPECT_EQ(made(schedstat_probe, "initbench.schedstat=1"), Names{"schedstat"});
    EXPECT_EQ(made(schedstat_probe, "initbench.schedstat=0"), Names{});
    EXPECT_EQ(made(schedstat_probe, ""), Names{});
    EXPECT_EQ(made(kthread_probe, "initbench.kthread=rcu_tasks*"), Names{"kthread"});
    EXPECT_EQ(made(kthread_probe, ""), Names{});
    setup_end();
    const nlohmann::json times = setup_times_json();
    bool timed = false;
    for (const auto& probe : times["probes"])
        timed |= probe["probe"] == "schedstat";
    EXPECT_TRUE(timed) << times.dump();
}

// A comm can be anything a task names itself: the last ')' ends it.
TEST(ProcStat, TheCommEndsAtTheLastParenthesis) {
    struct Case {
        const char* line;
        int pid, ppid;
        const char* comm;
        uint64_t utime, stime;
    };
    for (const Case& c : {
             Case{"15 (rcu_tasks_trace) I 2 0 0 0 -1 2129984 0 0 0 0 7 31 0 0 20 0 1 0 8 0 0 "
                  "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 0 0 0 0 0 0",
                  15, 2, "rcu_tasks_trace", 7, 31},
             Case{"4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 0 0 0 0 123 456 0 0 20 0 1 0 9", 4242,
                  1, "a) b (c)", 123, 456},
         }) {
        auto st = parse_proc_stat(c.line);
        ASSERT_TRUE(st) << c.line;
        EXPECT_EQ(st->pid, c.pid);
        EXPECT_EQ(st->comm, c.comm);
        EXPECT_EQ(st->ppid, c.ppid);
        EXPECT_EQ(st->utime, c.utime);
        EXPECT_EQ(st->stime, c.stime);
    }
}

TEST(ProcStat, GroupFlagsAndChildrensTime) {
    // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
    // utime stime cutime cstime ...
    auto st = parse_proc_stat("42 (a) b) (c) S 1 41 42 0 -1 4194560 100 0 0 0 7 8 9 10 20 0");
    ASSERT_TRUE(st);
    EXPECT_EQ(st->pgrp, 41);
    EXPECT_EQ(st->flags, 4194560u);
    EXPECT_EQ(st->utime, 7u);
    EXPECT_EQ(st->stime, 8u);
    EXPECT_EQ(st->cutime, 9u);
    EXPECT_EQ(st->cstime, 10u);
}

TEST(ProcStat, ThisProcessIsReadFromProc) {
    auto st = read_proc_stat(::getpid());
    ASSERT_TRUE(st);
    EXPECT_EQ(st->pid, ::getpid());
    EXPECT_EQ(st->ppid, ::getppid());
    EXPECT_EQ(st->pgrp, ::getpgrp());
    EXPECT_FALSE(read_proc_stat(-5));
}

TEST(ProcStat, TruncatedOrGarbageIsRefused) {
    for (const char* bad : {"", "15", "15 (x", "15 (x) S 2 0", "x (y) S 2 0 0 0 -1 0 0 0 0 0 1 2 0 0", "15 (x) S z 0 0 0 -1 0 0 0 0 0 1 2 0 0", "15 (x) S 2 0 0 0 -1 0 0 0 0 0 1 2"})
        EXPECT_FALSE(parse_proc_stat(bad)) << bad;
}

constexpr const char* kSchedstat = "version 15\n"
                                   "timestamp 4294892365\n"
                                   "cpu0 0 0 100 40 60 30 5000000 200000 90\n"
                                   "domain0 03 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 "
                                   "29 30 31 32 33 34 35 36\n"
                                   "cpu1 0 0 7 1 2 1 100 10 3\n";

TEST(Schedstat, ParsesCpusAndDomains) {
    Schedstat s = parse_schedstat(kSchedstat);
    EXPECT_EQ(s.version, 15);
    ASSERT_EQ(s.cpus.size(), 2u);
    // Version 15 (Documentation/scheduler/sched-stats.rst): 9 numbers per CPU line, and 36
    // per domain line after the CPU mask: 8 load-balance counts for each of 3 idle states,
    // then 3 each for active, exec and fork balancing, and 3 for wake-ups.
    EXPECT_EQ(s.cpus["cpu0"].size(), 9u);
    EXPECT_EQ(s.cpus["cpu0"][2], 100u);
    ASSERT_EQ(s.domains.size(), 1u);
    EXPECT_EQ(s.masks["cpu0/domain0"], "03");
    EXPECT_EQ(s.domains["cpu0/domain0"].size(), 36u);
    EXPECT_EQ(s.domains["cpu0/domain0"][35], 36u);
}

TEST(Schedstat, UnknownVersionHasNoNames) {
    EXPECT_TRUE(schedstat_cpu_fields(16).empty());
    EXPECT_EQ(schedstat_domain_fields(15).size(), 36u);
}

TEST(Schedstat, NamesAreTheDocumentedPositions) {
    // The CPU line's fields as sched-stats.rst numbers them (1-based there).
    const auto& cpu = schedstat_cpu_fields(15);
    ASSERT_EQ(cpu.size(), 9u);
    EXPECT_EQ(cpu[2], "sched_count");  // 3: times schedule() was called
    EXPECT_EQ(cpu[3], "sched_goidle"); // 4: ... that left the CPU idle
    EXPECT_EQ(cpu[4], "ttwu_count");   // 5: try_to_wake_up() calls
    EXPECT_EQ(cpu[5], "ttwu_local");   // 6: ... that woke a task on the local CPU
    EXPECT_EQ(cpu[6], "rq_cpu_time");  // 7: time tasks ran on this CPU (ns)
    EXPECT_EQ(cpu[7], "run_delay");    // 8: time tasks waited to run (ns)
    EXPECT_EQ(cpu[8], "pcount");       // 9: timeslices run
}

// Version 3: the named deltas as metrics, through the record's description; the layout's
// version and a domain's mask are not metrics.
TEST(Schedstat, RecordCarriesTheNamedDeltasAsMetrics) {
    const Schedstat begin = parse_schedstat(kSchedstat);
    Schedstat end = begin;
    end.cpus["cpu0"][7] += 500; // run_delay
    end.domains["cpu0/domain0"][24] += 2; // alb_count
    nlohmann::json r{{"type", "probe"}, {"probe", "schedstat"}};
    add_schedstat_deltas(r, begin, end);
    EXPECT_FALSE(r.contains("undeclared_metrics")) << r.dump();
    const auto& m = r["metrics"];
    EXPECT_EQ(m["cpus.cpu0.run_delay"], (nlohmann::json{{"value", 500}, {"unit", "ns"}, {"better", "lower"},
                                                         {"agg", "amean"}}));
    EXPECT_EQ(m["domains.cpu0/domain0.deltas.alb_count"]["value"], 2);
    EXPECT_EQ(m.size(), 2u * 8 + 36); // two CPUs' eight named fields, one domain's 36
    EXPECT_FALSE(m.contains("version"));
    EXPECT_EQ(r["cpus"]["cpu0"]["run_delay"], 500); // the fields users read stay
    // A layout it does not know: raw deltas, and no metrics.
    Schedstat v16 = begin, v16_end = end;
    v16.version = v16_end.version = 16;
    nlohmann::json raw{{"type", "probe"}, {"probe", "schedstat"}};
    add_schedstat_deltas(raw, v16, v16_end);
    EXPECT_FALSE(raw.contains("metrics"));
    EXPECT_TRUE(raw["cpus"]["cpu0"].is_array());
}

// The kthread probe runs natively: its record's metrics are declared ones, with units, and
// the clock tick and the pids are not among them.
TEST(Kthread, RecordCarriesItsMetrics) {
    auto probe = make_kthread({"*"});
    probe->phase_begin();
    probe->window_end();
    const nlohmann::json r = probe->phase_end();
    EXPECT_FALSE(r.contains("undeclared_metrics")) << r.dump();
    ASSERT_TRUE(r.contains("metrics")) << r.dump();
    EXPECT_EQ(r["metrics"]["ticks"]["unit"], "ticks");
    EXPECT_EQ(r["metrics"]["cpu_s"]["unit"], "s");
    // The last part of a name is the field; the host's own kthreads (this test reads them)
    // may have "pid" in their names, e.g. kworker/0:2-cgroup_pidlist_destroy.
    for (const auto& [name, m] : r["metrics"].items()) {
        const std::string field = name.substr(name.rfind('.') + 1);
        EXPECT_NE(field, "clk_tck") << name;
        EXPECT_NE(field, "pid") << name;
    }
    EXPECT_FALSE(r["metrics"].contains("clk_tck"));
}

// kthread's combine (the guest's runner calls it through the registry; boot.Loads checks
// that): ticks per span from the span result of the same phase; nothing without spans.
TEST(Kthread, CombinesWithTheSpansOfItsPhase) {
    auto probe = make_kthread({"*"});
    probe->phase_begin();
    probe->window_end();
    nlohmann::json kthread = probe->phase_end();
    kthread["ticks"] = 30;
    kthread["samples"]["stime"] = {4, 6};
    const nlohmann::json span = {{"probe", "span"}, {"count", 6}, {"samples", {{"count", {2, 4}}}}};
    nlohmann::json results = {kthread, span};
    add_ticks_per_span(results);
    EXPECT_DOUBLE_EQ(results[0]["ticks_per_span"].get<double>(), 5.0);
    EXPECT_DOUBLE_EQ(results[0]["metrics"]["ticks_per_span"]["value"].get<double>(), 5.0);
    EXPECT_DOUBLE_EQ(results[0]["stime_per_span"]["avg"].get<double>(), 1.75) << results[0].dump(); // 4/2, 6/4
    EXPECT_DOUBLE_EQ(results[0]["metrics"]["stime_per_span.avg"]["value"].get<double>(), 1.75);
    nlohmann::json alone = {kthread};
    add_ticks_per_span(alone);
    EXPECT_FALSE(alone[0].contains("ticks_per_span"));
}

TEST(Percentile, FromBuckets) {
    std::vector<Bucket> b = {{0, 10, 50}, {10, 20, 50}};
    EXPECT_DOUBLE_EQ(*percentile(b, 50), 10.0);
    EXPECT_DOUBLE_EQ(*percentile(b, 100), 20.0);
    EXPECT_DOUBLE_EQ(*percentile(b, 25), 5.0);
    EXPECT_FALSE(percentile({{0, 10, 0}}, 50));
    EXPECT_FALSE(percentile(b, 0));
    EXPECT_FALSE(percentile(b, 101));
}

// Per-interval counts and averages from running totals; stddev over intervals with spans.
TEST(SpanSamples, IntervalsFromRunningTotals) {
    SpanSamples s;
    s.add(2, 200);  // 2 spans, 100 ns each
    s.add(2, 200);  // none
    s.add(6, 1400); // 4 spans, 300 ns each
    const auto j = s.to_json();
    EXPECT_EQ(j["count"], nlohmann::json({2, 0, 4}));
    EXPECT_EQ(j["avg_ns"], nlohmann::json({100.0, nullptr, 300.0}));
    EXPECT_DOUBLE_EQ(j["avg_ns_stddev"].get<double>(), std::sqrt(20000.0));
    s.clear();
    s.add(1, 50);
    EXPECT_TRUE(s.to_json()["avg_ns_stddev"].is_null());
    EXPECT_EQ(s.to_json()["count"], nlohmann::json({1}));
}

// A kthread's stime ticks per span, interval by interval (the RCU seed's "ticks per grace
// period, avg and stddev"): intervals without spans are left out, mismatched series refused.
TEST(SpanSamples, PerSpanInIntervals) {
    const auto j = per_span_in_intervals({4, 3, 9}, {2, 0, 3}); // 2 and 3 ticks per span
    EXPECT_DOUBLE_EQ(j["avg"].get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(j["stddev"].get<double>(), std::sqrt(0.5));
    EXPECT_EQ(j["intervals"], 2);
    EXPECT_TRUE(per_span_in_intervals({4}, {2})["stddev"].is_null());
    EXPECT_TRUE(per_span_in_intervals({4, 1}, {0, 0}).is_null());
    EXPECT_TRUE(per_span_in_intervals({4, 1}, {2}).is_null());
}

// A count and its histogram bucket, as a probe's kernel side updates them one after the other.
struct Counted {
    uint64_t count, bucket;
};

// Hands out the scripted reads in turn, one vector of CPUs per read, and counts them.
struct ScriptedReads {
    std::vector<Result<std::vector<Counted>>> script;
    size_t reads = 0;
    Result<std::vector<Counted>> operator()() { return script.at(reads++); }
};

TEST(SettledRead, AnUpdateCaughtHalfDoneIsReadAgain) {
    // CPU 0 is read between its count and its bucket, then whole; CPU 1 is idle.
    ScriptedReads r{{std::vector<Counted>{{5, 4}, {2, 2}}, std::vector<Counted>{{5, 5}, {2, 2}},
                     std::vector<Counted>{{5, 5}, {2, 2}}}};
    auto v = settled_read<Counted>(std::ref(r));
    ASSERT_TRUE(v);
    EXPECT_EQ(v.value()[0].count, 5u);
    EXPECT_EQ(v.value()[0].bucket, 5u);
    EXPECT_EQ(v.value()[1].bucket, 2u);
    EXPECT_EQ(r.reads, 3u);
}

TEST(SettledRead, QuietCpusCostTwoReads) {
    ScriptedReads r{{std::vector<Counted>{{1, 1}}, std::vector<Counted>{{1, 1}}}};
    auto v = settled_read<Counted>(std::ref(r));
    ASSERT_TRUE(v);
    EXPECT_EQ(v.value()[0].count, 1u);
    EXPECT_EQ(r.reads, 2u);
}

TEST(SettledRead, ACpuThatNeverSettlesKeepsItsLastRead) {
    ScriptedReads r;
    for (uint64_t i = 0; i < kSettleReads; i++)
        r.script.push_back(std::vector<Counted>{{i, i}, {7, 7}});
    auto v = settled_read<Counted>(std::ref(r));
    ASSERT_TRUE(v);
    EXPECT_EQ(v.value()[0].count, uint64_t(kSettleReads - 1));
    EXPECT_EQ(v.value()[1].count, 7u);
    EXPECT_EQ(r.reads, size_t(kSettleReads));
}

TEST(SettledRead, AFailedReadIsTheError) {
    ScriptedReads r{{std::vector<Counted>{{1, 0}}, Error{"reading the per-CPU counts", EBADF}}};
    auto v = settled_read<Counted>(std::ref(r));
    ASSERT_FALSE(v);
    EXPECT_EQ(v.error().what, "reading the per-CPU counts");
    EXPECT_EQ(v.error().err, EBADF);
}

