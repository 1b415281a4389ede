// The synthetic results documents compare's unit tests are made of: a run's phases, rates
// and identity as a Spec, written out as a results document, read back as a RunFile, and two
// of them compared.
#pragma once

#include "common/record.h"
#include "host/compare/compare.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace initbench {


using nlohmann::json;
using V = std::vector<double>;

// Small deviations around 1 that look like noise, the same on every call.
inline const V kJitter = {0.996, 1.004, 1.0, 1.003, 0.997};

struct Spec {
    std::string run_id = "00000000000000000000000000000001";
    std::string clock = "wall";
    std::string icount = "shift=4,align=off,sleep=off";
    std::string build_id = "6a2b4ac77585b8cf102cba771300e573c8489b69";
    std::string cmdline = "console=ttyS0 panic=-1 initbench.phases=fork";
    std::string image = "1111";
    std::string verdict = "ok";
    std::string status = "complete";
    double duration = 1;
    V rates = {200, 200, 200};
    double latency_ns = 2500000;
    double calls = 100; // funclat's count in each round
    bool calls_over_range = false; // funclat's linear histogram: every call above its buckets
    bool no_calls = false;         // funclat saw no call: both histograms empty
    json extra_records = json::array();
    // The environment: "" leaves it out, as documents written before it was recorded.
    std::string qemu, image_version, image_commit;
    std::vector<unsigned> host_cpus; // host.host_cpus; empty leaves it out
    std::optional<double> others_busy_cpus; // host.others_busy_cpus; none leaves it out
};

// The run's records: its header, each round's phase and funclat records, the extra ones and
// the end.
inline json spec_records(const Spec& s) {
    json records = json::array();
    records.push_back({{"v", 1},
                       {"type", "header"},
                       {"run_id", s.run_id},
                       {"kernel",
                        {{"release", "6.1.0-57-amd64"},
                         {"build_id", s.build_id},
                         {"cmdline", s.cmdline},
                         {"cpus_online", 1}}},
                       {"config",
                        {{"values",
                          {{"phases", {"fork"}},
                           {"duration", s.duration},
                           {"rounds", s.rates.size()},
                           {"timeout", 600}}}}}});
    for (size_t r = 0; r < s.rates.size(); r++) {
        records.push_back({{"v", 1},
                           {"type", "phase"},
                           {"phase", "fork"},
                           {"round", r},
                           {"ops", 1000},
                           {"metrics",
                            {{"ops_per_s",
                              {{"value", s.rates[r]},
                               {"unit", "forks/s"},
                               {"agg", "hmean"},
                               {"better", "higher"}}}}}});
        records.push_back({{"v", 1},
                           {"type", "probe"},
                           {"phase", "fork"},
                           {"round", r},
                           {"probe", "funclat"},
                           {"function", "kernel_clone"},
                           {"supported", true},
                           {"mechanism", "fentry/fexit"},
                           {"unit", "ns"},
                           {"count", s.calls * kJitter[r % kJitter.size()]},
                           {"avg", s.latency_ns * kJitter[r % kJitter.size()]},
                           {"log2", s.no_calls ? json::array() : json{{1048576, 60}, {2097152, 40}}},
                           {"linear",
                            {{"unit", "us"},
                             {"min", 0},
                             {"step", 5},
                             {"max", 10},
                             {"under", 0},
                             {"over", s.no_calls ? 0 : s.calls_over_range ? 100 : 1},
                             {"buckets", s.no_calls || s.calls_over_range ? json{0, 0} : json{50, 49}}}}});
    }
    for (const auto& r : s.extra_records)
        records.push_back(r);
    records.push_back({{"v", 1}, {"type", "end"}, {"records", records.size()}});
    if (!s.image_version.empty())
        records[0]["initbench"] = s.image_version;
    if (!s.image_commit.empty())
        records[0]["initbench_commit"] = s.image_commit;
    return records;
}

inline json make_doc(const Spec& s) {
    json argv = {"qemu-system-x86_64", "-accel", "tcg"};
    if (s.clock == "icount") {
        argv.push_back("-icount");
        argv.push_back(s.icount);
    }
    json doc = {{"initbench_results", 1},
                {"verdict", s.verdict},
                {"exit_code", 0},
                {"reason", "complete"},
                {"log", {{"status", s.status}}},
                {"host",
                 {{"qemu_argv", argv},
                  {"accel", "tcg"},
                  {"clock", s.clock},
                  {"arch", "x86_64"},
                  {"memory_mb", 1024},
                  {"kernel", {{"sha256", "aaaa"}}},
                  {"image", {{"sha256", s.image}}}}},
                {"records", spec_records(s)}};
    if (!s.host_cpus.empty())
        doc["host"]["host_cpus"] = s.host_cpus;
    if (s.others_busy_cpus)
        doc["host"]["others_busy_cpus"] = *s.others_busy_cpus;
    if (!s.qemu.empty())
        doc["environment"] = {{"qemu", {{"binary", "qemu-system-x86_64"}, {"banner", s.qemu}}}};
    return doc;
}

inline RunFile run_of(const Spec& s, const std::string& path = "run.json") {
    auto r = parse_results(make_doc(s).dump(), path);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? r.value() : RunFile{};
}

inline V scaled(double base, size_t n = 5) {
    V out;
    for (size_t i = 0; i < n; i++)
        out.push_back(base * kJitter[i % kJitter.size()]);
    return out;
}

inline Spec with_rates(V rates, std::string run_id, std::string build_id = "") {
    Spec s;
    s.rates = std::move(rates);
    s.run_id = std::move(run_id);
    if (!build_id.empty())
        s.build_id = build_id;
    return s;
}

inline const MetricRow* row(const Report& r, const std::string& id) {
    for (const auto& m : r.metrics)
        if (m.id == id)
            return &m;
    return nullptr;
}

inline Report compare_two(const Spec& a, const Spec& b, CompareOptions o = {}) {
    auto r =
        compare_sides({Side{"base", {run_of(a, "a.json")}}, Side{"new", {run_of(b, "b.json")}}}, o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    return r.ok() ? r.value() : Report{};
}

// One wall-clock run a side with its rounds judged as samples (--unit round): the tests of
// the methods themselves. By default (--unit auto) such a comparison gives no verdicts.
inline Report compare_rounds(const Spec& a, const Spec& b, CompareOptions o = {}) {
    o.unit = SampleUnit::round;
    return compare_two(a, b, o);
}

inline Spec with_clock(Spec s, const std::string& clock) {
    s.clock = clock;
    return s;
}

inline bool has_warning(const Report& r, const std::string& part) {
    for (const auto& w : r.warnings)
        if (w.find(part) != std::string::npos)
            return true;
    return false;
}

// One boot a side whose rounds agree closely but 30 % apart: rounds would call it significant.
inline Spec slow_spec(const std::string& clock) {
    Spec s = with_clock(with_rates(scaled(140), "b", "bb"), clock);
    s.latency_ns *= 1.4;
    return s;
}

} // namespace initbench
