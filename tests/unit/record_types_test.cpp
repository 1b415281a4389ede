// The declared record descriptions (common/record_decls.h, and each probe's bpf/X/X_probe.h):
// gathering them, writing metrics through them,
// reading records of every version through them, and their agreement with docs/schema/.
#include "common/config.h"
#include "common/record_types.h"
#include "tests/unit/unit_folders.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

namespace initbench {
namespace {

using nlohmann::json;

std::map<std::string, MeasuredValue> by_name(const json& record) {
    std::map<std::string, MeasuredValue> out;
    for (auto& m : record_metrics(record))
        out[m.name] = m;
    return out;
}

// A probe is its own files: every bpf/X/X_probe.h's declaration reaches the record
// descriptions and the key table through the generated catalog, with no list by hand.
TEST(ProbeCatalog, GathersEveryProbesOwnDeclaration) {
    // A probe is a folder bpf/X/ holding X_probe.h; core/ is the framework.
    const auto folders = unit_folders(std::string(INITBENCH_SOURCE_DIR) + "/bpf", "@_probe.h");
    ASSERT_GE(folders.size(), 6u);
    ASSERT_EQ(std::size(probe_catalog::kDecls), folders.size());
    for (const ProbeDecl* probe : probe_catalog::kDecls) {
        SCOPED_TRACE(std::string(probe->name()));
        EXPECT_EQ(probe->record->type, "probe");
        const RecordType* found = find_record_type("probe", probe->name());
        ASSERT_NE(found, nullptr);
        EXPECT_EQ(found->metrics.data(), probe->record->metrics.data()); // the probe's own table
        const std::span<const KeySpec> keys = probe->keys;
        ASSERT_FALSE(keys.empty());
        for (const KeySpec& key : keys) {
            const KeySpec* row = find_key(key.name);
            ASSERT_NE(row, nullptr) << key.name;
            EXPECT_EQ(row->help, key.help) << key.name;
        }
    }
    // Every probe's keys parse, as users write them.
    EXPECT_TRUE(parse_config("initbench.funclat=f initbench.span=a:b initbench.kthread=k* "
                             "initbench.wakeups initbench.schedstat initbench.task_storage_churn.on=syscall:getpgid",
                             nullptr)
                    .ok());
    EXPECT_FALSE(parse_config("initbench.span=a", nullptr).ok()); // a probe's own check
}

TEST(RecordBuilder, WritesDeclaredMetricsWithTheirUnitBetterAndAgg) {
    json r{{"type", "probe"}, {"probe", "funclat"}};
    RecordBuilder b(declared_type("probe", "funclat"), r);
    b.field("count", 3);
    b.metric("percentiles.p50", 10.5);
    EXPECT_EQ(r["count"], 3);
    EXPECT_EQ(r["metrics"]["count"], (json{{"value", 3}, {"unit", "calls"}, {"better", "none"}, {"agg", "amean"}}));
    EXPECT_EQ(r["metrics"]["percentiles.p50"]["unit"], "ns");
    EXPECT_FALSE(r.contains("undeclared_metrics"));
}

TEST(RecordBuilder, LeavesOutWhatWasNotMeasured) {
    json r{{"type", "probe"}, {"probe", "wakeups"}, {"processes", nullptr}};
    RecordBuilder b(declared_type("probe", "wakeups"), r);
    b.metric("processes", r["processes"]);
    b.metric("threads", std::nan(""));
    EXPECT_FALSE(r.contains("metrics"));
    EXPECT_FALSE(r.contains("undeclared_metrics"));
}

TEST(RecordBuilder, EntriesFillTheStarsAndEachEntryGivesItsUnit) {
    json r{{"type", "probe"}, {"probe", "perf"}};
    RecordBuilder b(declared_type("probe", "perf"), r);
    b.metric("counters.*.value", 12, {"task-clock"}, "ns");
    b.metric("counters.*.value", 5, {"context-switches"}, "");
    b.metric("counters.*.derived.value", 1.5, {"instructions"}, "insn per cycle", "higher");
    EXPECT_EQ(r["metrics"]["counters.task-clock.value"]["unit"], "ns");
    EXPECT_EQ(r["metrics"]["counters.context-switches.value"]["unit"], "count");
    EXPECT_EQ(r["metrics"]["counters.instructions.derived.value"]["better"], "higher");
}

// Names are checked at compile time (MetricName); what only a run knows is checked then.
TEST(RecordBuilder, AnUndeclaredNameIsListedNotWritten) {
    json r{{"type", "probe"}, {"probe", "schedstat"}};
    RecordBuilder b(declared_type("probe", "schedstat"), r);
    b.metric("cpus.*.*", 4, {"cpu0", "pcount"});
    b.metric("cpus.*.*", 0, {"cpu0", "legacy_zero"}); // not a declared field
    b.metric("cpus.*.*", 1, {"cpu0"});                // a "*" left open
    b.metric("count", 1);                             // funclat's, not schedstat's
    EXPECT_EQ(r["metrics"].size(), 1u);
    EXPECT_EQ(r["metrics"]["cpus.cpu0.pcount"]["unit"], "events");
    EXPECT_EQ(r["undeclared_metrics"], (json{"cpus.cpu0.legacy_zero", "cpus.cpu0.*", "count"}));
}

TEST(RecordMetrics, Version2FunclatReadsItsDeclaredFields) {
    json r = {{"v", 2}, {"type", "probe"}, {"probe", "funclat"}, {"function", "kernel_clone"},
              {"phase", "fork"}, {"round", 0}, {"supported", true}, {"unit", "ns"}, {"count", 100},
              {"avg", 5.5}, {"percentiles", {{"p50", 4}}}, {"log2", {{4, 1}}}};
    auto m = by_name(r);
    EXPECT_EQ(m.size(), 3u);
    EXPECT_EQ(m["count"].unit, "calls");
    EXPECT_EQ(m["avg"].better, "lower");
    EXPECT_EQ(m["percentiles.p50"].value, 4);
    EXPECT_TRUE(m["count"].headline);
    EXPECT_EQ(record_identity(r), (std::vector<std::string>{"funclat", "kernel_clone"}));
    auto h = record_histograms(r);
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ(h[0].first->field, "log2");
}

// Not the schedstat layout's version, a thread's pid or the kernel's clock tick.
TEST(RecordMetrics, Version2NonMeasurementsAreNotMetrics) {
    json kthread = {{"v", 2}, {"type", "probe"}, {"probe", "kthread"}, {"clk_tck", 100.0}, {"ticks", 3},
                    {"threads", {{{"pid", 3}, {"comm", "rcu_gp"}, {"ticks", 1}},
                                 {{"pid", 9}, {"comm", "rcu_gp"}, {"ticks", 2}},
                                 {{"pid", 78}, {"comm", "kdamond.0"}, {"ticks", 4}}}}};
    auto k = by_name(kthread);
    EXPECT_EQ(k.size(), 4u);
    EXPECT_EQ(k["threads.kdamond_0.ticks"].value, 4); // a '.' would be one more segment
    EXPECT_EQ(k["threads.rcu_gp.ticks"].value, 1);
    EXPECT_EQ(k["threads.rcu_gp#2.ticks"].value, 2);
    json schedstat = {{"v", 2}, {"type", "probe"}, {"probe", "schedstat"}, {"version", 15},
                      {"cpus", {{"cpu0", {{"run_delay", 7}, {"pcount", 2}}}}},
                      {"domains", {{"cpu0/domain0", {{"mask", "1"}, {"deltas", {{"alb_count", 1}}}}}}}};
    auto s = by_name(schedstat);
    EXPECT_EQ(s.size(), 3u);
    EXPECT_EQ(s["cpus.cpu0.run_delay"].unit, "ns");
    EXPECT_EQ(s["domains.cpu0/domain0.deltas.alb_count"].unit, "events");
    json background = {{"v", 2}, {"type", "background"}, {"pid", 42}, {"exit", 0}, {"ready_s", 0.5}};
    EXPECT_EQ(by_name(background).size(), 1u);
    json perf = {{"v", 2}, {"type", "probe"}, {"probe", "perf"}, {"elapsed_s", 1.0},
                 {"counters", {{{"event", "cycles"}, {"supported", false}, {"errno", 2}},
                               {{"event", "page-faults"}, {"supported", true}, {"unit", ""}, {"value", 9},
                                {"running_pct", 100.0}, {"derived", {{"value", 9.0}, {"unit", "/sec"}}}}}}};
    auto p = by_name(perf);
    EXPECT_EQ(p.size(), 3u);
    EXPECT_EQ(p["counters.page-faults.value"].unit, "count");
    EXPECT_EQ(p["counters.page-faults.derived.value"].unit, "/sec");
}

TEST(RecordMetrics, Version3ReadsItsMetricsInDeclaredOrder) {
    json r = {{"v", 3}, {"type", "probe"}, {"probe", "wakeups"}, {"threads", 99}};
    RecordBuilder b(declared_type("probe", "wakeups"), r);
    b.metric("wakeups", 10);
    b.metric("threads", 2);
    auto m = record_metrics(r);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].name, "threads");
    EXPECT_EQ(m[0].value, 2); // the metric, not the field beside it
    EXPECT_EQ(m[1].name, "wakeups");
}

TEST(RecordMetrics, UndescribedAndDerivedRecordsGiveNone) {
    EXPECT_TRUE(record_metrics({{"type", "stage"}, {"x", 1}}).empty());
    EXPECT_TRUE(record_metrics({{"type", "probe"}, {"probe", "newer"}, {"count", 1}}).empty());
    EXPECT_TRUE(record_metrics({{"type", "end"}, {"records", 4}}).empty());
    // From version 3 the metrics are what "metrics" holds: a field beside them is not one.
    EXPECT_TRUE(record_metrics({{"v", 3}, {"type", "probe"}, {"probe", "funclat"}, {"count", 1}}).empty());
    EXPECT_TRUE(record_metrics({{"type", "summary"},
                                {"metrics", {{"x", {{"value", 1}}}}}}).empty());
    EXPECT_TRUE(record_metrics(json(7)).empty());
}

// compare keeps the records that measure something: told by their description, not by a
// list of type names.
TEST(RecordTypes, WhichTypesMeasure) {
    for (auto type : {"header", "end", "warning", "error", "kernel", "summary"})
        EXPECT_FALSE(measures(*find_record_type(type))) << type;
    EXPECT_TRUE(measures(*find_record_type("phase")));
    EXPECT_TRUE(measures(*find_record_type("background")));
    EXPECT_TRUE(measures(*find_record_type("command", "module")));
    for (auto kind : {"funclat", "span", "wakeups", "kthread", "schedstat", "task_storage_churn", "perf"})
        EXPECT_TRUE(measures(*find_record_type("probe", kind))) << kind;
}

TEST(RecordTypes, DeclarationsAreWellFormed) {
    for (const RecordType& t : record_types()) {
        EXPECT_EQ(find_record_type(t.type, t.kind), &t) << t.type << " " << t.kind << " twice";
        for (const MetricDecl& m : t.metrics) {
            EXPECT_TRUE(m.agg == "amean" || m.agg == "hmean" || m.agg == "gmean") << m.name;
            const bool per_entry = m.name.find('*') != std::string_view::npos;
            EXPECT_TRUE(m.better == "higher" || m.better == "lower" || m.better == "none" ||
                        (per_entry && m.better.empty()))
                << m.name;
            EXPECT_TRUE(!m.unit.empty() || per_entry) << m.name;
        }
    }
}

// ---- agreement with docs/schema/ ----------------------------------------------------------

json schema(const std::string& name) {
    std::ifstream in(std::filesystem::path(INITBENCH_SOURCE_DIR) / "docs/schema" / name);
    return json::parse(in);
}

// The "metrics" object defs.schema.json allows a record type (generated by `initbench
// schema`), or null; and the record's own schema must apply that definition.
const json* metrics_schema(const json& defs, const RecordType& t) {
    const std::string name = "metrics_" + std::string(t.type);
    const auto def = defs.find(name);
    if (def == defs.end())
        return nullptr;
    const json record = schema("record-" + std::string(t.type) + ".schema.json");
    EXPECT_NE(std::find(record["allOf"].begin(), record["allOf"].end(),
                        json{{"$ref", "defs.schema.json#/$defs/" + name}}),
              record["allOf"].end())
        << "record-" << t.type << ".schema.json does not apply " << name;
    if (t.kind.empty())
        return &(*def)["properties"]["metrics"];
    const std::string field(kind_field(t.type));
    const auto branches = def->find("allOf");
    if (branches == def->end())
        return nullptr;
    for (const json& branch : *branches)
        if (const json& kinds = branch["if"]["properties"][field]["enum"];
            std::find(kinds.begin(), kinds.end(), json(std::string(t.kind))) != kinds.end())
            return &branch["then"]["properties"]["metrics"];
    return nullptr;
}

// Concrete names a declaration stands for: each "*" an entry's name, the last one each of
// its fields.
std::vector<std::string> examples(const MetricDecl& m) {
    std::string name(m.name);
    const auto stars = std::count(name.begin(), name.end(), '*');
    if (stars == 0)
        return {name};
    for (long i = 0; i + 1 < stars; i++)
        name.replace(name.find('*'), 1, "cpu0/domain0");
    const size_t last = name.find('*');
    if (m.fields.empty())
        return {name.replace(last, 1, "rcu_tasks_kthread#2")};
    std::vector<std::string> out;
    for (std::string_view f : m.fields)
        out.push_back(std::string(name).replace(last, 1, f));
    return out;
}

// Each declared metric is in its record's schema, with the same unit, better and agg, and
// the schema allows no metric that is not declared.
TEST(RecordTypes, AgreeWithTheSchemas) {
    const json defs = schema("defs.schema.json")["$defs"];
    for (const RecordType& t : record_types()) {
        const json* s = metrics_schema(defs, t);
        SCOPED_TRACE(std::string(t.type) + " " + std::string(t.kind));
        if (t.metrics.empty()) {
            EXPECT_EQ(s, nullptr) << "a schema with metrics for a type that declares none";
            continue;
        }
        ASSERT_NE(s, nullptr) << "no metrics in the schema";
        EXPECT_EQ((*s)["additionalProperties"], false);
        const json& named = s->value("properties", json::object());
        const json& patterns = s->value("patternProperties", json::object());
        for (const MetricDecl& m : t.metrics)
            for (const std::string& name : examples(m)) {
                const json* found = named.contains(name) ? &named[name] : nullptr;
                for (const auto& [re, sub] : patterns.items())
                    if (!found && std::regex_search(name, std::regex(re)))
                        found = &sub;
                ASSERT_NE(found, nullptr) << name << " is not in the schema";
                const json& p = found->value("properties", json::object());
                if (!m.unit.empty()) {
                    EXPECT_EQ(p.value("unit", json::object()).value("const", ""), m.unit) << name;
                }
                if (!m.better.empty()) {
                    EXPECT_EQ(p.value("better", json::object()).value("const", ""), m.better) << name;
                }
                EXPECT_EQ(p.value("agg", json::object()).value("const", ""), m.agg) << name;
            }
        for (const auto& [name, sub] : named.items())
            EXPECT_NE(find_metric(t, name), nullptr) << name << " is in the schema, not declared";
    }
}

} // namespace
} // namespace initbench
