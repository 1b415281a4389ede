// Contract tests of `initbench compare` (issue 13, item 2): the records every load and probe
// really emits go through compare, and each metric they carry must appear, pair across
// rounds and sides, and never become part of a group's name. The logs under
// data/contract/ are the record lines of real boots (Debian's 6.1 under TCG, one CPU), two
// boots (a, b) a set-up, each with initbench.rounds=2 initbench.duration=0.3
// initbench.workers=1:
//   loads:  phases=none,cpu,fork,thread,pipe,tcp,sleep,syscall,sleep+syscall wakeups=1
//           funclat= sleep.tasks=20 thread.threads=2 pipe.fds=2
//   probes: phases=fork funclat=kernel_clone (the profile's) span=kernel_clone:wake_up_new_task
//           kthread=rcu* schedstat=1 perf=default
//   churn:  phases=sleep sleep.tasks=20 task_storage_churn=1
// Made again by booting the same parameters with `initbench run --log` and keeping the
// lines holding "IB1 ".
#include "common/record_types.h"
#include "host/results/logparse.h"
#include "host/compare/compare.h"
#include "host/results/results.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

namespace initbench {
namespace {

using nlohmann::json;

std::string data(const std::string& name) {
    auto path = std::filesystem::path(__FILE__).parent_path() / "data" / "contract" / name;
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The log as `initbench parse` reads it, then as compare reads the results document.
RunFile run_of(const std::string& name) {
    const ParsedLog log = parse_log(data(name));
    EXPECT_EQ(log.status, LogStatus::complete) << name;
    const json doc = results_document(log, judge(log, std::nullopt), {{"source", name}});
    auto run = parse_results(doc.dump(), name);
    EXPECT_TRUE(run.ok()) << name << ": " << (run.ok() ? "" : run.error().message());
    return run.ok() ? run.value() : RunFile{};
}

Report compare_setup(const std::string& setup) {
    auto report = compare_sides(
        {Side{"a", {run_of(setup + "-a.log")}}, Side{"b", {run_of(setup + "-b.log")}}},
        CompareOptions{});
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message());
    return report.ok() ? report.value() : Report{};
}

// The metric is found on both sides, with one sample a round (2) on each.
void expect_paired(const Report& r, const std::string& id) {
    auto row = std::find_if(r.metrics.begin(), r.metrics.end(),
                            [&](const MetricRow& m) { return m.id == id; });
    ASSERT_NE(row, r.metrics.end()) << id << " is not compared";
    ASSERT_EQ(row->sides.size(), 2u);
    for (size_t i = 0; i < 2; i++) {
        EXPECT_TRUE(row->sides[i].summary) << id << " side " << i << ": " << row->sides[i].error;
        EXPECT_EQ(row->sides[i].samples.size(), 2u)
            << id << " side " << i << ": both rounds in one group";
    }
}

void expect_histogram(const Report& r, const std::string& id) {
    auto row = std::find_if(r.histograms.begin(), r.histograms.end(),
                            [&](const HistRow& h) { return h.id == id; });
    ASSERT_NE(row, r.histograms.end()) << id << " is not compared";
    for (const auto& counts : row->counts)
        EXPECT_FALSE(counts.empty()) << id << ": missing on a side";
}

// A measured field is never part of a group's name ("[threads=6]"): each side's rounds
// would then fall into groups of their own.
void expect_no_measured_dimension(const Report& r, const std::set<std::string>& names) {
    for (const auto& m : r.metrics)
        for (const auto& name : names)
            EXPECT_EQ(m.group.find(name + "="), std::string::npos) << m.id;
}

// Every metric a phase record declares (its `metrics`) is compared as PHASE/NAME.
void expect_declared_phase_metrics(const Report& r, const std::string& log_name) {
    const ParsedLog log = parse_log(data(log_name));
    size_t phases = 0;
    for (const auto& rec : log.records) {
        const json& j = rec.json;
        if (j.value("type", "") != "phase" || !j.contains("metrics"))
            continue;
        phases++;
        for (const auto& [name, m] : j["metrics"].items())
            expect_paired(r, j["phase"].get<std::string>() + "/" + name);
    }
    EXPECT_GT(phases, 0u);
}

const std::vector<std::string> kLoadPhases = {"cpu",   "fork",  "thread", "pipe-1",
                                              "tcp-1", "sleep", "syscall"};

TEST(CompareContract, EveryLoadsMetricsPair) {
    Report r = compare_setup("loads");
    expect_declared_phase_metrics(r, "loads-a.log");
    for (const auto& phase : kLoadPhases) {
        expect_paired(r, phase + "/ops_per_s");
        expect_paired(r, phase + "/ops_per_s_per_worker");
    }
    for (const char* phase : {"pipe-1", "tcp-1"})
        expect_paired(r, std::string(phase) + "/mb_per_s");
    for (const char* load : {"sleep", "syscall"})
        expect_paired(r, std::string("sleep+syscall/") + load + ".ops_per_s");
    for (const auto& m : r.metrics)
        EXPECT_EQ(m.group.find('['), std::string::npos)
            << m.id << ": no sweep here, so no dimension";
}

// The mm_cid experiment's figures: distinct threads, processes and mms woken, and the
// wake-ups, in every phase (the idle one too), both rounds on each side.
TEST(CompareContract, WakeupsProbe) {
    Report r = compare_setup("loads");
    std::vector<std::string> phases = kLoadPhases;
    phases.insert(phases.end(), {"none", "sleep+syscall"});
    for (const auto& phase : phases)
        for (const char* name : {"wakeups", "threads", "processes", "mms", "dropped"})
            expect_paired(r, phase + "/wakeups/" + name);
    expect_no_measured_dimension(r, {"wakeups", "threads", "processes", "mms", "dropped"});
}

TEST(CompareContract, FunclatProbe) {
    Report r = compare_setup("probes");
    for (const char* name : {"count", "sum", "min", "max", "avg", "entries", "missed",
                             "percentiles.p50", "percentiles.p90", "percentiles.p99"})
        expect_paired(r, std::string("fork/funclat:kernel_clone/") + name);
    expect_histogram(r, "fork/funclat:kernel_clone/log2");
    expect_histogram(r, "fork/funclat:kernel_clone/linear");
    expect_no_measured_dimension(r, {"count", "avg", "entries", "missed"});
}

TEST(CompareContract, SpanProbe) {
    Report r = compare_setup("probes");
    for (const char* name : {"count", "min", "max", "avg", "stddev", "unmatched_to",
                             "percentiles.p50", "samples.avg_ns_stddev"})
        expect_paired(r, std::string("fork/span:kernel_clone:wake_up_new_task/") + name);
    expect_histogram(r, "fork/span:kernel_clone:wake_up_new_task/log2");
}

// The ticks of the kernel threads asked for, in all and one by one (by name: their pids
// differ from boot to boot).
TEST(CompareContract, KthreadProbe) {
    Report r = compare_setup("probes");
    for (const char* name : {"ticks", "cpu_s", "ticks_per_span"})
        expect_paired(r, std::string("fork/kthread/") + name);
    for (const char* thread : {"rcu_gp", "rcu_preempt", "rcu_tasks_kthread"}) {
        expect_paired(r, std::string("fork/kthread/threads.") + thread + ".ticks");
        expect_paired(r, std::string("fork/kthread/threads.") + thread + ".stime");
    }
    for (const auto& m : r.metrics)
        EXPECT_EQ(m.name.find("pid"), std::string::npos) << m.id << ": a pid is not a measurement";
}

TEST(CompareContract, SchedstatProbe) {
    Report r = compare_setup("probes");
    for (const char* name : {"pcount", "run_delay", "rq_cpu_time", "sched_count", "sched_goidle",
                             "ttwu_count", "ttwu_local", "yld_count"})
        expect_paired(r, std::string("fork/schedstat/cpus.cpu0.") + name);
}

// perf's counters by event; those the machine cannot count (TCG has no PMU) give no sample.
TEST(CompareContract, PerfProbe) {
    Report r = compare_setup("probes");
    expect_paired(r, "fork/perf/elapsed_s");
    for (const char* event : {"task-clock", "context-switches", "cpu-migrations", "page-faults"}) {
        expect_paired(r, std::string("fork/perf/counters.") + event + ".value");
        expect_paired(r, std::string("fork/perf/counters.") + event + ".derived.value");
    }
    for (const auto& m : r.metrics)
        EXPECT_EQ(m.id.find("counters.cycles"), std::string::npos) << m.id << ": not counted here";
    auto task_clock = std::find_if(r.metrics.begin(), r.metrics.end(), [](const MetricRow& m) {
        return m.id == "fork/perf/counters.task-clock.value";
    });
    ASSERT_NE(task_clock, r.metrics.end());
    EXPECT_EQ(task_clock->unit, "ns");
}

TEST(CompareContract, TaskStorageChurnProbe) {
    Report r = compare_setup("churn");
    expect_declared_phase_metrics(r, "churn-a.log");
    for (const char* name : {"created", "deleted", "failed"})
        expect_paired(r, std::string("sleep/task_storage_churn/") + name);
}

// The same records as version 3 writes them: each described record's metrics in its
// "metrics", beside the fields it keeps.
RunFile as_version_3(RunFile run) {
    for (auto& r : run.records) {
        const RecordType* type = record_type_of(r);
        if (!type || type->load_metrics || type->derived)
            continue;
        json metrics = json::object();
        for (const auto& m : record_metrics(r))
            metrics[m.name] = {{"value", m.value}, {"unit", m.unit}, {"better", m.better}, {"agg", m.agg}};
        if (!metrics.empty())
            r["metrics"] = std::move(metrics);
        r["v"] = 3;
    }
    return run;
}

// Each row's id, unit, direction and samples a side.
std::map<std::string, std::string> rows(const Report& r) {
    std::map<std::string, std::string> out;
    for (const auto& m : r.metrics) {
        std::string what = m.unit + " " + std::to_string(int(m.better));
        for (const auto& side : m.sides)
            what += " " + std::to_string(side.samples.size());
        out[m.id] = what;
    }
    return out;
}

// An old baseline compares with a new run: a version 2 record's declared fields and a
// version 3 record's metrics are the same metrics, with the same units and directions.
TEST(CompareContract, Version2And3RecordsPair) {
    for (const std::string setup : {"loads", "probes", "churn"}) {
        SCOPED_TRACE(setup);
        const RunFile a = run_of(setup + "-a.log"), b = run_of(setup + "-b.log");
        auto old_new = compare_sides({Side{"a", {a}}, Side{"b", {as_version_3(b)}}}, CompareOptions{});
        ASSERT_TRUE(old_new.ok());
        EXPECT_EQ(rows(old_new.value()), rows(compare_setup(setup)));
        EXPECT_GT(old_new.value().metrics.size(), 10u);
    }
}

} // namespace
} // namespace initbench
