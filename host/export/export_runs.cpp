// A run's own tests: each metric of each round as a DONE number, each probe the kernel could
// not run as SKIP with its reason, and a run that failed or wrote error records as one ERROR
// with its cause and no numbers at all (a number from such a run would be trusted).
#include "host/export/export_model.h"

#include "common/json_fields.h"
#include "common/text.h"

#include <cmath>
#include <filesystem>
#include <map>

namespace initbench::exporting {

using nlohmann::json;

std::string status_name(TestStatus s) {
    static constexpr const char* kNames[] = {"FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"};
    return kNames[size_t(s)];
}

std::string digest(std::string_view text) {
    uint64_t h = 1469598103934665603ull; // FNV-1a, 64 bits
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return out;
}

std::vector<std::string> path_of(const std::string& id) {
    std::vector<std::string> parts;
    std::string part;
    auto flush = [&] {
        while (!part.empty() && part.back() == '-')
            part.pop_back();
        size_t lead = part.find_first_not_of('-');
        if (lead != std::string::npos)
            parts.push_back(part.substr(lead));
        part.clear();
    };
    for (char c : id) {
        if (c == '/' || c == ':' || c == '.')
            flush();
        else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')
            part += c;
        else if (!part.empty() && part.back() != '-')
            part += '-'; // "tcp[clients=64]" -> "tcp-clients-64"
    }
    flush();
    return parts;
}

Kernel kernel_of(const Run& run, const std::string& label) {
    const RunFile& f = run.file;
    Kernel k;
    k.key = !f.build_id.empty()        ? f.build_id
            : !f.kernel_sha256.empty() ? f.kernel_sha256
            : !f.kernel_release.empty() ? "release-" + digest(f.kernel_release)
                                        : ""; // a boot that failed before saying (build_model)
    k.release = f.kernel_release;
    k.build_id = f.build_id;
    k.sha256 = f.kernel_sha256;
    k.arch = run.context.arch;
    k.config_name = run.context.config_name;
    k.config_sha256 = run.context.config_sha256;
    k.label = label;
    return k;
}

namespace {

// Whole numbers as integers: a round is 0, not 0.0.
json number_json(double x) {
    return x == std::floor(x) && std::fabs(x) < 9e15 ? json(static_cast<long long>(x)) : json(x);
}

// The boot's own key: its run id, or for a document without one (a boot that failed before
// its header), a digest of the document.
std::string run_key(const Run& run) { return !run.file.run_id.empty() ? run.file.run_id : "doc-" + run.context.content; }

// The boot in a JUnit case's name, so that a side's boots give distinct cases: "run b5f77275".
std::string base_name(const Run& run) { return "run " + run_key(run).substr(0, 12); }


// What every test of the run carries: the boot, the clock and the environment.
Test run_base(const Run& run, size_t kernel, const std::string& suite) {
    const RunFile& f = run.file;
    const RunContext& c = run.context;
    Test t;
    t.kernel = kernel;
    t.suite = suite;
    t.start_time = c.start_time;
    t.log_name = c.log_name;
    Platform p = platform_of(c);
    t.platform = p.words;
    t.environment = p.figures;
    t.misc = {{"run_id", f.run_id},
              {"file", std::filesystem::path(f.path).filename().string()},
              {"clock", f.clock},
              {"kernel_release", f.kernel_release}};
    auto add = [&](const char* key, const std::string& v) {
        if (!v.empty())
            t.misc.emplace_back(key, v);
    };
    add("clock_detail", f.clock_detail);
    add("qemu", f.qemu);
    add("image_version", f.image_version);
    add("image_commit", f.image_commit);
    add("host_cpus", f.host_cpus);
    if (f.others_busy_cpus)
        t.misc.emplace_back("others_busy_cpus", *f.others_busy_cpus);
    return t;
}

Test error_test(const Run& run, size_t kernel, const std::string& suite) {
    const RunFile& f = run.file;
    Test t = run_base(run, kernel, suite);
    t.id = run_key(run) + ":run";
    t.name = "boot " + base_name(run);
    t.status = TestStatus::error;
    std::string cause = f.failure.empty() ? "" : f.failure + "\n";
    for (const auto& e : f.errors)
        cause += "error record: " + e + "\n";
    t.excerpt = cause.substr(0, 16384);
    t.comment = "the run failed (" + f.verdict + "): none of its numbers is exported";
    t.misc.emplace_back("verdict", f.verdict);
    return t;
}

Test metric_test(const Test& base, const Series& s, double value, double round, size_t repeat) {
    Test t = base;
    const std::string r = number_label(round);
    t.id += ":r" + r + ":" + s.id + (repeat ? "#" + std::to_string(repeat + 1) : "");
    t.path = path_of(s.id);
    t.name = s.id + " round " + r + ", " + base.name;
    t.value = value;
    t.unit = s.unit;
    t.misc.emplace_back("round", number_json(round));
    t.misc.emplace_back("metric", s.id);
    t.misc.emplace_back("agg", std::string(agg_label(s.agg)));
    t.misc.emplace_back("better", s.better == Better::higher  ? "higher"
                                  : s.better == Better::lower ? "lower"
                                                              : "unknown");
    return t;
}

Test skip_test(const Test& base, const json& record, double round) {
    Test t = base;
    const std::string group = metric_group(record);
    const std::string r = number_label(round);
    t.id += ":r" + r + ":" + group + ":unsupported";
    t.path = path_of(group);
    t.name = group + " round " + r + ", " + base.name;
    t.status = TestStatus::skip;
    t.excerpt = json_str(record, "reason", "the probe is not supported by this kernel");
    t.comment = group + " cannot run on this kernel: " + t.excerpt;
    t.misc.emplace_back("round", number_json(round));
    return t;
}

} // namespace

Platform platform_of(const RunContext& c) {
    Platform p;
    if (c.qemu_binary.empty() && c.accel.empty())
        p.words = "not recorded (a log parsed from another runner)";
    else
        p.words = (c.qemu_binary.empty() ? std::string("qemu") : c.qemu_binary) + " machine " +
                  (c.machine.empty() ? "default" : c.machine) + ", accel " + (c.accel.empty() ? "?" : c.accel);
    p.figures = {{"platform", p.words}, {"arch", c.arch}, {"accel", c.accel}, {"machine", c.machine}};
    if (c.cpus)
        p.figures.emplace_back("cpus", number_json(*c.cpus));
    if (c.memory_mb)
        p.figures.emplace_back("memory_mb", number_json(*c.memory_mb));
    return p;
}

std::vector<Test> run_tests(const Run& run, size_t kernel, const std::string& suite) {
    const RunFile& f = run.file;
    if (!f.failure.empty() || !f.errors.empty())
        return {error_test(run, kernel, suite)};
    Test base = run_base(run, kernel, suite);
    base.id = run_key(run);
    base.name = base_name(run);
    // One round at a time, so that each number knows its round.
    std::map<double, RunFile> rounds;
    for (const auto& r : f.records) {
        const double round = json_num(r, "round").value_or(0);
        if (!rounds.contains(round)) {
            rounds[round] = f;
            rounds[round].records.clear();
        }
        rounds[round].records.push_back(r);
    }
    std::vector<Test> tests;
    for (const auto& [round, one] : rounds) {
        for (const Series& s : extract({one}).metrics)
            for (size_t k = 0; k < s.samples.size(); k++)
                tests.push_back(metric_test(base, s, s.samples[k], round, k));
        for (const auto& r : one.records)
            if (json_str(r, "type") == "probe" && json_field(r, "supported") && r["supported"] == false)
                tests.push_back(skip_test(base, r, round));
    }
    return tests;
}

} // namespace initbench::exporting
