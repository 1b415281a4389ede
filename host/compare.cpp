#include "host/compare.h"

#include "common/record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---- reading results documents: every access checks the type (input from anywhere) ----

const json* field(const json& j, const char* key) {
    if (!j.is_object())
        return nullptr;
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

std::string str_field(const json& j, const char* key, std::string fallback = "") {
    const json* f = field(j, key);
    return f && f->is_string() ? f->get<std::string>() : fallback;
}

std::optional<double> num_field(const json& j, const char* key) {
    const json* f = field(j, key);
    if (f && f->is_number())
        return f->get<double>();
    return std::nullopt;
}

const json& obj_field(const json& j, const char* key) {
    static const json empty = json::object();
    const json* f = field(j, key);
    return f && f->is_object() ? *f : empty;
}

// Settings that change how long or how a run ends, not what it measures.
const std::set<std::string> kRunOnlySettings = {"rounds", "timeout", "end", "loglevel"};
// Record types that carry no measurements.
const std::set<std::string> kNonMeasurement = {"header", "end", "error", "warning", "kernel"};
// Strings that name what a record measures (a probe and its function, a counter ...).
const std::vector<const char*> kIdentityStrings = {"probe",   "function", "name",    "event",
                                                   "from",    "to",       "kthread", "comm",
                                                   "counter", "target",   "cmd",     "module"};
// Numbers that tell records of one phase apart (a tbench sweep's client count ...).
// Not "threads", "processes" or "tasks": the wakeups probe measures those (distinct tasks
// woken), and as dimensions each round's values made a group of their own that never paired.
const std::vector<const char*> kDimensionNumbers = {"clients", "groups",   "pairs", "size",
                                                    "msg_size", "bytes", "cpu",   "instance", "index"};
const std::set<std::string> kBookkeeping = {"v", "type", "phase", "round", "seq"};
// Fields of a record whose "unit" they are in (funclat's avg, min, max, sum in ns).
const std::set<std::string> kInRecordUnit = {"avg", "min", "max", "sum",  "mean",   "stddev", "p50",
                                             "p90", "p95", "p99", "p999", "median", "total"};

std::string icount_option(const json& host) {
    const json* argv = field(host, "qemu_argv");
    if (!argv || !argv->is_array())
        return "";
    for (size_t i = 0; i + 1 < argv->size(); i++)
        if ((*argv)[i] == "-icount" && (*argv)[i + 1].is_string())
            return (*argv)[i + 1].get<std::string>();
    return "";
}

json experiment_of(const json& header, const json& host) {
    json exp = json::object();
    json values = obj_field(obj_field(header, "config"), "values");
    for (const auto& key : kRunOnlySettings)
        values.erase(key);
    exp["config"] = values;
    for (const char* key : {"arch", "accel", "memory_mb"})
        if (const json* f = field(host, key))
            exp[key] = *f;
    if (auto cpus = num_field(obj_field(header, "kernel"), "cpus_online"))
        exp["cpus"] = *cpus;
    return exp;
}

// Kernel parameters without initbench's own: what tells two kernels' command lines apart.
std::string kernel_params(const std::string& cmdline) {
    std::istringstream in(cmdline);
    std::string word, out;
    while (in >> word)
        if (word.rfind("initbench.", 0) != 0)
            out += (out.empty() ? "" : " ") + word;
    return out;
}

// ---- finding metrics in records --------------------------------------------------------

std::string format_number(double x) {
    char buf[64];
    if (x == std::floor(x) && std::fabs(x) < 1e15)
        std::snprintf(buf, sizeof buf, "%.0f", x);
    else
        std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

Better parse_better(const std::string& s) {
    return s == "higher" ? Better::higher : s == "lower" ? Better::lower : Better::unknown;
}

std::string record_group(const json& r) {
    const std::string type = str_field(r, "type");
    std::string group = str_field(r, "phase", type);
    std::string subject;
    for (const char* key : kIdentityStrings)
        if (auto s = str_field(r, key); !s.empty())
            subject += (subject.empty() ? "" : ":") + s;
    if (subject.empty() && type != "phase")
        subject = type;
    if (!subject.empty())
        group += "/" + subject;
    std::string dims;
    for (const char* key : kDimensionNumbers)
        if (auto n = num_field(r, key))
            dims += (dims.empty() ? "" : ",") + std::string(key) + "=" + format_number(*n);
    return dims.empty() ? group : group + "[" + dims + "]";
}

bool is_identity(const std::string& key) {
    auto same = [&](const char* k) { return key == k; };
    return std::any_of(kIdentityStrings.begin(), kIdentityStrings.end(), same) ||
           std::any_of(kDimensionNumbers.begin(), kDimensionNumbers.end(), same);
}

// [[key, count], ...] with numbers only: a sparse histogram such as funclat's log2.
bool is_keyed_histogram(const json& v) {
    if (!v.is_array() || v.empty())
        return false;
    return std::all_of(v.begin(), v.end(), [](const json& e) {
        return e.is_array() && e.size() == 2 && e[0].is_number() && e[1].is_number();
    });
}

// {"buckets": [counts...], "min", "step", "under", "over", "unit"}: a linear histogram.
bool is_linear_histogram(const json& v) {
    const json* b = field(v, "buckets");
    return b && b->is_array() &&
           std::all_of(b->begin(), b->end(), [](const json& e) { return e.is_number(); });
}

class Collector {
public:
    void record(const json& r, const std::string& group, size_t run) {
        run_ = run;
        const json& metrics = obj_field(r, "metrics");
        if (!metrics.empty()) {
            for (const auto& [name, m] : metrics.items())
                add_declared(group, name, m);
        } else if (str_field(r, "type") != "phase") {
            flatten(r, group, "", str_field(r, "unit"), 0);
        }
    }

    Extracted take() {
        Extracted e;
        e.metrics = std::move(metrics_);
        for (auto& h : hists_) {
            HistSeries out = std::move(h.series);
            for (const auto& [key, bucket] : h.buckets) {
                out.labels.push_back(bucket.first);
                out.counts.push_back(bucket.second);
            }
            e.histograms.push_back(std::move(out));
        }
        return e;
    }

private:
    struct PooledHist {
        HistSeries series;
        std::map<double, std::pair<std::string, double>> buckets; // order key -> label, count
    };

    void add(Series& s, double value) {
        s.samples.push_back(value);
        s.runs.push_back(run_);
    }

    Series& series(const std::string& group, const std::string& name) {
        std::string id = group + "/" + name;
        auto [it, fresh] = metric_index_.try_emplace(id, metrics_.size());
        if (fresh) {
            metrics_.push_back(Series{});
            metrics_.back().id = id;
            metrics_.back().group = group;
            metrics_.back().name = name;
        }
        return metrics_[it->second];
    }

    void add_declared(const std::string& group, const std::string& name, const json& m) {
        if (m.is_number()) {
            add(series(group, name), m.get<double>());
            return;
        }
        auto value = num_field(m, "value");
        if (!value)
            return; // a metric that could not be measured is explicit, never a 0
        Series& s = series(group, name);
        s.unit = str_field(m, "unit", s.unit);
        s.agg = stats::parse_agg(str_field(m, "agg"));
        s.better = parse_better(str_field(m, "better"));
        add(s, *value);
    }

    void flatten(const json& obj, const std::string& group, const std::string& prefix,
                 const std::string& unit, int depth) {
        for (const auto& [key, v] : obj.items()) {
            if (prefix.empty() && (kBookkeeping.count(key) || is_identity(key)))
                continue;
            const std::string name = prefix + key;
            if (v.is_number()) {
                Series& s = series(group, name);
                if (kInRecordUnit.count(key))
                    s.unit = unit;
                add(s, v.get<double>());
            } else if (is_keyed_histogram(v)) {
                add_keyed(group, name, v, unit);
            } else if (v.is_object() && is_linear_histogram(v)) {
                add_linear(group, name, v);
            } else if (v.is_object() && depth < 3) {
                flatten(v, group, name + ".", str_field(v, "unit", unit), depth + 1);
            }
        }
    }

    PooledHist& hist(const std::string& group, const std::string& name, const std::string& unit,
                     const std::string& shape) {
        std::string id = group + "/" + name;
        auto [it, fresh] = hist_index_.try_emplace(id, hists_.size());
        if (fresh) {
            hists_.push_back(PooledHist{});
            HistSeries& s = hists_.back().series;
            s.id = id;
            s.group = group;
            s.name = name;
            s.unit = unit;
            s.shape = shape;
        }
        PooledHist& h = hists_[it->second];
        if (h.series.shape != shape)
            h.series.shape_conflict = true;
        return h;
    }

    void add_keyed(const std::string& group, const std::string& name, const json& v,
                   const std::string& unit) {
        PooledHist& h = hist(group, name, unit, "keyed");
        for (const auto& e : v) {
            double key = e[0].get<double>();
            auto& bucket = h.buckets[key];
            bucket.first = format_number(key);
            bucket.second += e[1].get<double>();
        }
    }

    void add_linear(const std::string& group, const std::string& name, const json& v) {
        const json& buckets = v["buckets"];
        auto min = num_field(v, "min"), step = num_field(v, "step");
        const std::string unit = str_field(v, "unit");
        const std::string shape = "linear " + json{{"min", v.value("min", json())},
                                                   {"step", v.value("step", json())},
                                                   {"n", buckets.size()},
                                                   {"unit", unit}}
                                                  .dump();
        PooledHist& h = hist(group, name, unit, shape);
        if (h.series.shape_conflict)
            return;
        const size_t n = buckets.size();
        auto put = [&](double order, std::string label, double count) {
            auto& bucket = h.buckets[order];
            bucket.first = std::move(label);
            bucket.second += count;
        };
        if (auto under = num_field(v, "under"))
            put(-1, min ? "<" + format_number(*min) : "under", *under);
        for (size_t i = 0; i < n; i++) {
            std::string label = "#" + std::to_string(i);
            if (min && step)
                label = "[" + format_number(*min + *step * double(i)) + "," +
                        format_number(*min + *step * double(i + 1)) + ")";
            put(double(i), label, buckets[i].get<double>());
        }
        if (auto over = num_field(v, "over"))
            put(double(n), min && step ? ">=" + format_number(*min + *step * double(n)) : "over",
                *over);
    }

    size_t run_ = 0;
    std::vector<Series> metrics_;
    std::map<std::string, size_t> metric_index_;
    std::vector<PooledHist> hists_;
    std::map<std::string, size_t> hist_index_;
};

// ---- checking that sides can be compared -----------------------------------------------

// "duration: 1 vs 2; phases: ["fork"] vs ["none","fork"]" for two experiments.
std::string describe_difference(const json& a, const json& b) {
    std::vector<std::string> parts;
    auto walk = [&](const json& x, const json& y, const std::string& prefix, auto& self) -> void {
        std::set<std::string> keys;
        for (const auto& [k, v] : x.items())
            keys.insert(k);
        for (const auto& [k, v] : y.items())
            keys.insert(k);
        for (const auto& k : keys) {
            json vx = x.contains(k) ? x[k] : json(), vy = y.contains(k) ? y[k] : json();
            if (vx == vy)
                continue;
            if (vx.is_object() && vy.is_object())
                self(vx, vy, prefix + k + ".", self);
            else
                parts.push_back(prefix + k + ": " + (vx.is_null() ? "unset" : vx.dump()) + " vs " +
                                (vy.is_null() ? "unset" : vy.dump()));
        }
    };
    walk(a, b, "", walk);
    std::string out;
    for (size_t i = 0; i < parts.size() && i < 6; i++)
        out += (i ? "; " : "") + parts[i];
    if (parts.size() > 6)
        out += "; ...";
    return out;
}

std::string clock_name(const RunFile& r) {
    return r.clock_detail.empty() ? r.clock : r.clock + " (-icount " + r.clock_detail + ")";
}

Status check_clocks(const std::vector<Side>& sides, const CompareOptions& options,
                    std::vector<std::string>& warnings) {
    const RunFile& first = sides[0].runs[0];
    for (const auto& side : sides)
        for (const auto& run : side.runs) {
            if (run.clock == first.clock && run.clock_detail == first.clock_detail)
                continue;
            std::string why = "different clocks: " + first.path + " ran on " + clock_name(first) +
                              ", " + run.path + " on " + clock_name(run);
            // Instruction-counted time and real time are different units: never comparable.
            if (run.clock == "icount" || first.clock == "icount" || !options.force)
                return Error{why};
            warnings.push_back(why + " (compared anyway: --force)");
        }
    return ok();
}

Status check_experiments(const std::vector<Side>& sides, const CompareOptions& options,
                         std::vector<std::string>& warnings) {
    const RunFile& first = sides[0].runs[0];
    for (const auto& side : sides)
        for (const auto& run : side.runs) {
            if (run.experiment == first.experiment)
                continue;
            std::string why = "different experiments: " + first.path + " and " + run.path +
                              " differ in " + describe_difference(first.experiment, run.experiment);
            if (!options.force)
                return Error{why + " (--force compares them anyway)"};
            warnings.push_back(why + " (compared anyway: --force)");
        }
    return ok();
}

void identity_warnings(const std::vector<Side>& sides, std::vector<std::string>& warnings) {
    std::map<std::string, std::string> seen_run_ids;
    for (const auto& side : sides)
        for (const auto& run : side.runs) {
            if (run.run_id.empty())
                continue;
            auto [it, fresh] = seen_run_ids.try_emplace(run.run_id, run.path);
            if (!fresh)
                warnings.push_back(it->second + " and " + run.path + " carry the same run id " +
                                   run.run_id + ": one run counted twice?");
        }
    auto kernel_of = [](const RunFile& r) {
        return r.build_id + "|" + r.image_sha256 + "|" + kernel_params(r.cmdline);
    };
    for (const auto& side : sides) {
        std::set<std::string> kernels;
        for (const auto& run : side.runs) {
            kernels.insert(kernel_of(run));
            if (run.verdict != "ok")
                warnings.push_back(run.path + ": the run reported error records");
            if (run.kernel_events)
                warnings.push_back(run.path + ": " + std::to_string(run.kernel_events) +
                                   " kernel WARN/oops/BUG record(s)");
        }
        if (kernels.size() > 1)
            warnings.push_back(side.label + " pools runs of different kernels (build id, image or "
                                            "kernel parameters differ)");
    }
    const RunFile& base = sides[0].runs[0];
    for (size_t i = 1; i < sides.size(); i++) {
        bool all_same = !base.build_id.empty();
        for (const auto* side : {&sides[0], &sides[i]})
            for (const auto& run : side->runs)
                all_same = all_same && kernel_of(run) == kernel_of(base);
        if (all_same)
            warnings.push_back(sides[0].label + " and " + sides[i].label +
                               " ran the same kernel build (build id " + base.build_id +
                               "), the same image and the same kernel parameters: are these "
                               "really different kernels?");
    }
}

// "0.1.0 (bcdac30)": the image's build as its header says it; "" when it does not.
std::string image_build(const RunFile& r) {
    if (r.image_version.empty())
        return "";
    return r.image_version + (r.image_commit.empty() ? "" : " (" + r.image_commit + ")");
}

// Sides that ran under different QEMU or image builds: a change may be theirs, not the
// kernel's. Runs that do not record the fact are left out.
void environment_warnings(const std::vector<Side>& sides, std::vector<std::string>& warnings) {
    auto check = [&](const std::string& what, std::string (*value_of)(const RunFile&)) {
        std::vector<std::set<std::string>> seen(sides.size());
        for (size_t i = 0; i < sides.size(); i++)
            for (const auto& run : sides[i].runs)
                if (auto v = value_of(run); !v.empty())
                    seen[i].insert(v);
        auto list = [](const std::set<std::string>& values) {
            std::string out;
            for (const auto& v : values)
                out += (out.empty() ? "" : " and ") + v;
            return out;
        };
        for (size_t i = 0; i < sides.size(); i++)
            if (seen[i].size() > 1)
                warnings.push_back(sides[i].label + " pools runs of different " + what + ": " + list(seen[i]));
        for (size_t i = 1; i < sides.size(); i++)
            if (!seen[0].empty() && !seen[i].empty() && seen[i] != seen[0])
                warnings.push_back(what + " differs: " + sides[0].label + " ran " + list(seen[0]) + ", " +
                                   sides[i].label + " " + list(seen[i]) +
                                   "; a change may come from it, not from the kernel");
    };
    check("QEMU", [](const RunFile& r) { return r.qemu; });
    check("initbench image", image_build);
}

SideInfo side_info(const Side& side) {
    SideInfo info{side.label, {}, {}, "", "", "", ""};
    for (const auto& run : side.runs) {
        info.files.push_back(run.path);
        info.run_ids.push_back(run.run_id);
    }
    info.kernel_release = side.runs[0].kernel_release;
    info.build_id = side.runs[0].build_id;
    info.qemu = side.runs[0].qemu;
    info.image = image_build(side.runs[0]);
    return info;
}

std::string method_name(Method m) {
    switch (m) {
    case Method::lkp:
        return "lkp";
    case Method::threshold:
        return "threshold";
    case Method::welch:
        break;
    }
    return "welch";
}

std::string kind_name(ChangeKind k) {
    switch (k) {
    case ChangeKind::better:
        return "better";
    case ChangeKind::worse:
        return "worse";
    case ChangeKind::changed:
        return "changed";
    case ChangeKind::not_tested:
        return "not-tested";
    case ChangeKind::unqualified:
        return "unqualified";
    case ChangeKind::none:
        break;
    }
    return "same";
}

std::string better_name(Better b) {
    return b == Better::higher ? "higher" : b == Better::lower ? "lower" : "";
}

} // namespace

// ---- public: reading -------------------------------------------------------------------

Result<RunFile> parse_results(std::string_view text, const std::string& path) {
    json doc = json::parse(text.begin(), text.end(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        return Error{path + ": not a JSON object"};
    auto version = num_field(doc, "initbench_results");
    if (!version || *version != 1)
        return Error{path + ": not an initbench results document (initbench_results != 1)"};
    RunFile run;
    run.path = path;
    run.verdict = str_field(doc, "verdict", "?");
    const std::string status = str_field(obj_field(doc, "log"), "status", "?");
    if (status != "complete")
        return Error{path + ": the log is " + status + ": no numbers are taken from it"};
    if (run.verdict != "ok" && run.verdict != "errors")
        return Error{path + ": the run ended with '" + run.verdict + "' (" +
                     str_field(doc, "reason") + ")"};
    const json* records = field(doc, "records");
    if (!records || !records->is_array())
        return Error{path + ": no records"};
    const json* header = nullptr;
    for (const auto& r : *records) {
        if (const json* v = field(r, "v"); v && !known_record_version(*v))
            return Error{path + ": " + str_field(r, "type", "?") + " record: " + unknown_version_reason(*v)};
        const std::string type = str_field(r, "type");
        if (type == "header" && !header)
            header = &r;
        else if (type == "kernel")
            run.kernel_events++;
        else if (r.is_object() && !kNonMeasurement.count(type))
            run.records.push_back(r);
    }
    if (!header)
        return Error{path + ": no header record"};
    const json& host = obj_field(doc, "host");
    const json& kernel = obj_field(*header, "kernel");
    run.run_id = str_field(*header, "run_id");
    run.kernel_release = str_field(kernel, "release");
    run.build_id = str_field(kernel, "build_id");
    run.cmdline = str_field(kernel, "cmdline");
    run.kernel_sha256 = str_field(obj_field(host, "kernel"), "sha256");
    run.image_sha256 = str_field(obj_field(host, "image"), "sha256");
    run.clock = str_field(host, "clock", "unknown");
    if (run.clock == "icount")
        run.clock_detail = icount_option(host);
    run.experiment = experiment_of(*header, host);
    run.qemu = str_field(obj_field(obj_field(doc, "environment"), "qemu"), "banner");
    run.image_version = str_field(*header, "initbench");
    run.image_commit = str_field(*header, "initbench_commit");
    return run;
}

Result<RunFile> read_results(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return errno_error(path);
    std::string text{std::istreambuf_iterator<char>(in), {}};
    return parse_results(text, path);
}

// ---- public: extracting and comparing --------------------------------------------------

Extracted extract(const std::vector<RunFile>& runs) {
    Collector collector;
    for (size_t index = 0; index < runs.size(); index++) {
        const RunFile& run = runs[index];
        // A group seen twice in one round (the same phase listed twice) gets "#2", "#3" ...
        std::map<std::pair<double, std::string>, int> seen;
        for (const auto& r : run.records) {
            std::string group = record_group(r);
            int n = ++seen[{num_field(r, "round").value_or(0), group}];
            collector.record(r, n > 1 ? group + "#" + std::to_string(n) : group, index);
        }
    }
    return collector.take();
}

Change judge_change(std::span<const double> base, std::span<const double> next, double base_mean,
                    double next_mean, Better better, const CompareOptions& options) {
    Change c;
    c.pct = stats::percent_change(base_mean, next_mean);
    if (auto w = stats::welch(base, next, options.confidence))
        c.p = w.value().p;
    const bool moved = c.pct ? std::fabs(*c.pct) >= options.min_effect_pct : base_mean != next_mean;
    switch (options.method) {
    case Method::welch:
        if (!c.p)
            c.note = "Welch's t-test needs 2 samples a side";
        else
            c.significant = *c.p < 1 - options.confidence && moved;
        break;
    case Method::lkp:
        if (base.size() < 3 || next.size() < 3)
            c.note = "LKP's rule needs 3 samples a side";
        else
            c.significant = stats::lkp_separated(base, next) && moved;
        break;
    case Method::threshold:
        c.significant = moved;
        break;
    }
    if (!c.note.empty())
        c.kind = ChangeKind::not_tested;
    else if (c.significant && better == Better::unknown)
        c.kind = ChangeKind::changed;
    else if (c.significant)
        c.kind = (next_mean > base_mean) == (better == Better::higher) ? ChangeKind::better
                                                                       : ChangeKind::worse;
    return c;
}

Result<std::vector<double>> test_samples(const Series& s, SampleUnit unit) {
    if (unit != SampleUnit::run)
        return s.samples;
    std::map<size_t, std::vector<double>> by_run;
    for (size_t i = 0; i < s.samples.size(); i++)
        by_run[s.runs[i]].push_back(s.samples[i]);
    std::vector<double> out;
    for (const auto& [run, values] : by_run) {
        auto summary = stats::summarize(values, s.agg);
        if (!summary)
            return summary.error();
        out.push_back(summary.value().mean);
    }
    return out;
}

namespace {

SampleUnit choose_unit(const std::vector<Side>& sides, SampleUnit asked) {
    if (asked != SampleUnit::auto_)
        return asked;
    bool all_pooled =
        std::all_of(sides.begin(), sides.end(), [](const Side& s) { return s.runs.size() >= 2; });
    return all_pooled ? SampleUnit::run : SampleUnit::round;
}

std::string no_verdict_reason(const std::vector<Side>& sides, const std::string& clock) {
    std::vector<std::string> single;
    for (const auto& side : sides)
        if (side.runs.size() < 2)
            single.push_back(side.label);
    std::string who;
    for (size_t i = 0; i < single.size(); i++)
        who += (i == 0 ? "" : i + 1 == single.size() ? " and " : ", ") + single[i];
    return who + (single.size() > 1 ? " have" : " has") + " one run only" +
           (clock == "wall" ? " on the wall clock" : " (clock " + clock + ", not icount)") +
           ", so the samples are rounds of one boot; they share its host's conditions and "
           "understate the noise between boots. A verdict needs two or more runs a side "
           "(--unit round judges the rounds anyway)";
}

// The figures of a change, without the test that would be misread as a finding.
Change unqualified_change(double base_mean, double next_mean) {
    Change c;
    c.pct = stats::percent_change(base_mean, next_mean);
    c.kind = ChangeKind::unqualified;
    c.note = "not judged: one run a side";
    return c;
}

} // namespace

Result<Report> compare_sides(const std::vector<Side>& sides, const CompareOptions& options) {
    if (sides.empty()) // one side gives its summaries alone (initbench report of one run)
        return Error{"compare needs a side"};
    for (const auto& side : sides)
        if (side.runs.empty())
            return Error{side.label + ": no results files"};
    if (!(options.confidence > 0 && options.confidence < 1) || !(options.min_effect_pct >= 0))
        return Error{"confidence must be in (0, 1) and the minimum effect >= 0"};
    Report report;
    report.options = options;
    IB_TRY(check_clocks(sides, options, report.warnings));
    IB_TRY(check_experiments(sides, options, report.warnings));
    identity_warnings(sides, report.warnings);
    environment_warnings(sides, report.environment_warnings);
    report.warnings.insert(report.warnings.end(), report.environment_warnings.begin(),
                           report.environment_warnings.end());
    report.clock = sides[0].runs[0].clock;
    report.clock_detail = sides[0].runs[0].clock_detail;

    report.unit = choose_unit(sides, options.unit);
    if (options.unit == SampleUnit::auto_ && report.unit == SampleUnit::round &&
        report.clock != "icount" && sides.size() >= 2)
        report.no_verdict = no_verdict_reason(sides, report.clock);

    std::vector<Extracted> found;
    bool pooled_rounds = false;
    for (const auto& side : sides) {
        report.sides.push_back(side_info(side));
        found.push_back(extract(side.runs));
        for (const auto& s : found.back().metrics)
            pooled_rounds = pooled_rounds || s.samples.size() > side.runs.size();
    }
    if (report.unit == SampleUnit::round && pooled_rounds && report.clock != "icount" &&
        report.no_verdict.empty())
        report.warnings.push_back(
            "the samples are rounds: rounds of one boot share its host's conditions, so on the "
            "wall clock the test understates the noise between boots and flags changes that are "
            "not there; give every side two or more runs (compared run by run)");
    // Rows in the order the base has them, then what only later sides have.
    std::vector<const Series*> metric_order;
    std::vector<const HistSeries*> hist_order;
    std::set<std::string> listed;
    for (const auto& e : found) {
        for (const auto& s : e.metrics)
            if (listed.insert("m" + s.id).second)
                metric_order.push_back(&s);
        for (const auto& h : e.histograms)
            if (listed.insert("h" + h.id).second)
                hist_order.push_back(&h);
    }

    for (const Series* meta : metric_order) {
        MetricRow row{meta->id,  meta->group,  meta->name, meta->unit,
                      meta->agg, meta->better, {},         {}};
        for (const auto& e : found) {
            SideStats st;
            auto it = std::find_if(e.metrics.begin(), e.metrics.end(),
                                   [&](const Series& s) { return s.id == meta->id; });
            if (it == e.metrics.end()) {
                st.error = "missing";
            } else {
                auto samples = test_samples(*it, report.unit);
                auto summary = samples ? stats::summarize(samples.value(), meta->agg)
                                       : Result<stats::Summary>(samples.error());
                if (summary) {
                    st.samples = std::move(samples.value());
                    st.summary = summary.value();
                } else {
                    st.error = summary.error().message();
                }
            }
            row.sides.push_back(std::move(st));
        }
        for (size_t i = 1; i < row.sides.size(); i++) {
            const auto &a = row.sides[0], &b = row.sides[i];
            if (a.summary && b.summary && !report.no_verdict.empty())
                row.changes.push_back(unqualified_change(a.summary->mean, b.summary->mean));
            else if (a.summary && b.summary)
                row.changes.push_back(judge_change(a.samples, b.samples, a.summary->mean,
                                                   b.summary->mean, meta->better, options));
            else
                row.changes.push_back(Change{std::nullopt, std::nullopt, false,
                                             ChangeKind::not_tested,
                                             !a.summary ? "base: " + a.error : b.error});
        }
        report.metrics.push_back(std::move(row));
    }

    for (const HistSeries* meta : hist_order) {
        HistRow row{meta->id, meta->group, meta->name, meta->unit, {}, {}, {}};
        // Union of the buckets by label, in the order the sides list them.
        for (const auto& e : found)
            for (const auto& h : e.histograms)
                if (h.id == meta->id)
                    for (const auto& label : h.labels)
                        if (std::find(row.labels.begin(), row.labels.end(), label) ==
                            row.labels.end())
                            row.labels.push_back(label);
        std::vector<std::string> conflicts;
        std::optional<std::string> shape;
        for (const auto& e : found) {
            std::vector<double> counts;
            for (const auto& h : e.histograms) {
                if (h.id != meta->id)
                    continue;
                if (h.shape_conflict || (shape && *shape != h.shape))
                    conflicts.push_back("the histograms' buckets differ");
                shape = h.shape;
                counts.assign(row.labels.size(), 0);
                for (size_t i = 0; i < h.labels.size(); i++) {
                    auto at = std::find(row.labels.begin(), row.labels.end(), h.labels[i]);
                    counts[size_t(at - row.labels.begin())] = h.counts[i];
                }
            }
            row.counts.push_back(std::move(counts));
        }
        for (size_t i = 1; i < row.counts.size(); i++) {
            HistChange hc;
            if (!conflicts.empty()) {
                hc.note = conflicts[0];
            } else if (row.counts[0].empty() || row.counts[i].empty()) {
                hc.note = "missing";
            } else if (auto t = stats::compare_histograms(row.counts[0], row.counts[i])) {
                hc.test = t.value();
                // Events of one boot a side share its conditions as its rounds do.
                hc.unqualified = !report.no_verdict.empty();
                hc.significant = !hc.unqualified && t.value().p < 1 - options.confidence &&
                                 t.value().ks_d * 100 >= options.min_effect_pct;
            } else {
                hc.note = t.error().message();
            }
            row.changes.push_back(std::move(hc));
        }
        report.histograms.push_back(std::move(row));
    }
    return report;
}

// ---- rendering ---------------------------------------------------------------------------

namespace {

std::string fmt(const char* f, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

std::string value_text(double x) {
    if (x == 0 || std::fabs(x) >= 0.01)
        return fmt("%.2f", x);
    return fmt("%.3g", x);
}

// mmtests' change column: "(   0.00%)" for the base, "* -9.49%*" when significant, and
// "~ -9.49%~" when not judged (no verdict).
std::string change_text(const Change& c) {
    std::string pct = c.pct ? fmt("%7.2f%%", *c.pct) : "    n/a";
    if (c.kind == ChangeKind::unqualified)
        return "~" + pct + "~";
    return c.significant ? "*" + pct + "*" : "(" + pct + ")";
}

const char* colour_of(const Change& c) {
    switch (c.kind) {
    case ChangeKind::worse:
        return "\033[31m";
    case ChangeKind::better:
        return "\033[32m";
    case ChangeKind::changed:
        return "\033[33m";
    default:
        return nullptr;
    }
}

std::string method_sentence(const CompareOptions& o) {
    std::string effect = "a change of at least " + fmt("%g", o.min_effect_pct) + " %";
    std::string level = fmt("%g", o.confidence * 100) + " %";
    switch (o.method) {
    case Method::lkp:
        return "LKP's rule: at least 3 samples a side, ranges that do not overlap, and " + effect;
    case Method::threshold:
        return "threshold only (no test; for a deterministic clock): " + effect;
    case Method::welch:
        break;
    }
    return "Welch's t-test at " + level + " and " + effect;
}

std::string unit_sentence(SampleUnit unit) {
    return unit == SampleUnit::run ? "one sample per run (the mean of its rounds)"
                                   : "one sample per round";
}

// A table whose columns line up across all rows; a row with one cell is a heading line.
class Table {
public:
    struct Cell {
        std::string text;
        const char* colour = nullptr;
    };
    void row(std::vector<Cell> cells) { rows_.push_back(std::move(cells)); }
    void heading(std::string text) { rows_.push_back({Cell{std::move(text)}}); }

    std::string render(const std::function<bool(size_t)>& left_aligned, bool colour) const {
        std::vector<size_t> width;
        for (const auto& r : rows_)
            if (r.size() > 1)
                for (size_t i = 0; i < r.size(); i++) {
                    width.resize(std::max(width.size(), r.size()));
                    width[i] = std::max(width[i], r[i].text.size());
                }
        std::string out;
        for (const auto& r : rows_) {
            if (r.size() == 1) {
                out += r[0].text + "\n";
                continue;
            }
            std::string line;
            for (size_t i = 0; i < r.size(); i++) {
                std::string pad(width[i] - r[i].text.size(), ' ');
                std::string text = colour && r[i].colour
                                       ? std::string(r[i].colour) + r[i].text + "\033[0m"
                                       : r[i].text;
                line += (i ? "  " : "") + (left_aligned(i) ? text + pad : pad + text);
            }
            while (!line.empty() && line.back() == ' ')
                line.pop_back();
            out += line + "\n";
        }
        return out;
    }

private:
    std::vector<std::vector<Cell>> rows_;
};

std::string unit_note(const std::string& unit, Better better) {
    std::string note = unit;
    if (better != Better::unknown)
        note += (note.empty() ? "" : ", ") + better_name(better) + " is better";
    return note.empty() ? "" : "  [" + note + "]";
}

std::string histogram_verdict(const HistChange& c) {
    if (!c.test)
        return c.note;
    const auto& t = *c.test;
    if (t.df == 0)
        return "too few events outside one bucket to test";
    std::string s = "chi2 " + fmt("%.2f", t.chi2) + ", df " + std::to_string(t.df) + ", p " +
                    fmt("%.4f", t.p) + ", KS D " + fmt("%.3f", t.ks_d);
    if (c.unqualified)
        return s + ": no verdict (one run a side)";
    return s + (c.significant ? ": distributions differ" : ": no significant difference");
}

void text_metrics(const Report& report, const RenderOptions& ro, Table& t) {
    std::vector<Table::Cell> head = {{""}, {""}};
    for (size_t i = 0; i < report.sides.size(); i++) {
        head.push_back({report.sides[i].label});
        head.push_back({""});
    }
    t.row(head);
    std::string group;
    for (const auto& m : report.metrics) {
        if (m.group != group) {
            group = m.group;
            t.heading("");
            t.heading(group);
        }
        auto line = [&](std::string stat, auto cell) {
            std::vector<Table::Cell> cells = {{stat}, {m.name}};
            for (size_t i = 0; i < m.sides.size(); i++) {
                auto [value, change] = cell(i);
                cells.push_back(std::move(value));
                cells.push_back(std::move(change));
            }
            t.row(cells);
        };
        auto change_cell = [&](size_t i) -> Table::Cell {
            if (i == 0)
                return {m.sides[0].summary ? "(   0.00%)" : ""};
            const Change& c = m.changes[i - 1];
            return {m.sides[i].summary && m.sides[0].summary ? change_text(c) : "",
                    c.significant ? colour_of(c) : nullptr};
        };
        using Pair = std::pair<Table::Cell, Table::Cell>;
        auto stat = [&](auto get) {
            return [&, get](size_t i) -> Pair {
                const auto& s = m.sides[i].summary;
                return {Table::Cell{s ? get(*s) : "-"}, Table::Cell{""}};
            };
        };
        line(std::string(stats::agg_label(m.agg)), [&](size_t i) -> Pair {
            const auto& s = m.sides[i].summary;
            return {Table::Cell{s ? value_text(s->mean) : "-"}, change_cell(i)};
        });
        line("Stddev", stat([](const stats::Summary& s) { return value_text(s.stddev); }));
        line("CoeffVar", stat([](const stats::Summary& s) {
                 return s.cov ? fmt("%.2f%%", *s.cov * 100) : std::string("-");
             }));
        if (!ro.details)
            continue;
        line("Min", stat([](const stats::Summary& s) { return value_text(s.min); }));
        line("Max", stat([](const stats::Summary& s) { return value_text(s.max); }));
        line("Samples", stat([](const stats::Summary& s) { return std::to_string(s.n); }));
        line("p", [&](size_t i) -> Pair {
            if (i == 0)
                return {Table::Cell{""}, Table::Cell{""}};
            const Change& c = m.changes[i - 1];
            return {Table::Cell{c.p ? fmt("%.4f", *c.p) : "-"}, Table::Cell{c.note}};
        });
    }
}

std::string bar(double fraction, bool unicode) {
    int n = int(std::lround(fraction * 20));
    std::string out;
    for (int i = 0; i < n; i++)
        out += unicode ? "\u2588" : "#";
    return out;
}

// Buckets from the first to the last that holds anything on any side.
std::pair<size_t, size_t> occupied(const HistRow& h) {
    size_t first = h.labels.size(), last = 0;
    for (const auto& counts : h.counts)
        for (size_t i = 0; i < counts.size(); i++)
            if (counts[i] > 0) {
                first = std::min(first, i);
                last = std::max(last, i + 1);
            }
    return {first, std::max(first, last)};
}

double total(const std::vector<double>& v) {
    double t = 0;
    for (double x : v)
        t += x;
    return t;
}

std::string text_histograms(const Report& report, bool unicode, bool colour) {
    std::string out;
    for (const auto& h : report.histograms) {
        out += "\n" + h.id + (h.unit.empty() ? "" : "  [" + h.unit + "]") + "\n";
        for (size_t i = 0; i < h.changes.size(); i++)
            out += "  " + report.sides[i + 1].label + " vs " + report.sides[0].label + ": " +
                   histogram_verdict(h.changes[i]) + "\n";
        Table t;
        std::vector<Table::Cell> head = {{"  bucket"}};
        for (const auto& s : report.sides) {
            head.push_back({s.label});
            head.push_back({""});
            head.push_back({""});
        }
        t.row(head);
        auto [first, last] = occupied(h);
        for (size_t b = first; b < last; b++) {
            std::vector<Table::Cell> cells = {{"  " + h.labels[b]}};
            for (const auto& counts : h.counts) {
                double all = total(counts);
                double c = counts.empty() ? 0 : counts[b];
                cells.push_back({counts.empty() ? "-" : format_number(c)});
                cells.push_back({all > 0 ? fmt("%.1f%%", c / all * 100) : "-"});
                cells.push_back({all > 0 ? bar(c / all, unicode) : ""});
            }
            t.row(cells);
        }
        // Per side: count and percentage right-aligned, the bar left-aligned.
        out += t.render([](size_t col) { return col == 0 || col % 3 == 0; }, colour);
    }
    return out;
}

std::string header_text(const Report& report) {
    std::string out =
        "initbench compare: " + method_sentence(report.options) + "\nclock: " + report.clock +
        (report.clock_detail.empty() ? "" : " (-icount " + report.clock_detail + ")") + "; " +
        unit_sentence(report.unit) + "\n";
    for (const auto& s : report.sides) {
        std::string files;
        for (size_t i = 0; i < s.files.size(); i++)
            files += (i ? ", " : "") + s.files[i];
        out += s.label + ": " + std::to_string(s.files.size()) + " run(s), kernel " +
               (s.kernel_release.empty() ? "?" : s.kernel_release) + " build-id " +
               (s.build_id.empty() ? "?" : s.build_id.substr(0, 12)) + ": " + files + "\n";
    }
    for (const auto& w : report.warnings)
        out += "warning: " + w + "\n";
    if (!report.no_verdict.empty())
        out += "no verdict: " + report.no_verdict + ". Changes are shown as ~...~, not judged.\n";
    return out;
}

std::string render_text(const Report& report, const RenderOptions& ro) {
    const bool terminal = ro.format == Format::terminal;
    Table t;
    text_metrics(report, ro, t);
    std::string out = header_text(report) + t.render([](size_t col) { return col < 2; }, terminal);
    // Units once per group, after the table so they do not widen its columns.
    std::string units;
    std::set<std::string> seen;
    for (const auto& m : report.metrics)
        if (auto note = unit_note(m.unit, m.better);
            !note.empty() && seen.insert(m.name + note).second)
            units += "  " + m.name + note + "\n";
    if (!units.empty())
        out += "\nunits:\n" + units;
    if (!report.histograms.empty())
        out += text_histograms(report, terminal, terminal);
    return out;
}

std::string md_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|' || c == '*' || c == '_' || c == '[' || c == ']' || c == '<')
            out += '\\';
        out += c;
    }
    return out;
}

std::string render_markdown(const Report& report) {
    std::ostringstream out;
    out << "**initbench compare** — " << md_escape(method_sentence(report.options)) << "; clock "
        << report.clock << "; " << unit_sentence(report.unit) << "\n\n";
    for (const auto& s : report.sides)
        out << "- **" << md_escape(s.label) << "**: " << s.files.size() << " run(s), kernel "
            << md_escape(s.kernel_release) << " build-id `" << s.build_id.substr(0, 12) << "`\n";
    for (const auto& w : report.warnings)
        out << "- warning: " << md_escape(w) << "\n";
    if (!report.no_verdict.empty())
        out << "- **no verdict**: " << md_escape(report.no_verdict)
            << ". Changes are shown as \\~…\\~, not judged.\n";
    out << "\n| metric | unit | stat |";
    for (size_t i = 0; i < report.sides.size(); i++)
        out << " " << md_escape(report.sides[i].label) << " |" << (i ? " change |" : "");
    out << "\n|---|---|---|";
    for (size_t i = 0; i < report.sides.size(); i++)
        out << "---:|" << (i ? "---:|" : "");
    out << "\n";
    for (const auto& m : report.metrics) {
        out << "| " << md_escape(m.id) << " | " << md_escape(m.unit) << " | "
            << stats::agg_label(m.agg) << " |";
        for (size_t i = 0; i < m.sides.size(); i++) {
            const auto& s = m.sides[i].summary;
            out << " " << (s ? value_text(s->mean) + " ± " + value_text(s->stddev) : "-") << " |";
            if (i) {
                const Change& c = m.changes[i - 1];
                std::string pct = c.pct ? fmt("%+.2f%%", *c.pct) : "n/a";
                if (c.kind == ChangeKind::unqualified) // escaped: ~x~ is strikethrough in GFM
                    pct = "\\~" + pct + "\\~";
                else if (c.significant)
                    pct = "**" + pct + "**";
                out << " " << pct << " |";
            }
        }
        out << "\n";
    }
    for (const auto& h : report.histograms) {
        out << "\n**" << md_escape(h.id) << "**" << (h.unit.empty() ? "" : " (" + h.unit + ")");
        for (size_t i = 0; i < h.changes.size(); i++)
            out << " — " << md_escape(report.sides[i + 1].label) << ": "
                << md_escape(histogram_verdict(h.changes[i]));
        out << "\n\n| bucket |";
        for (const auto& s : report.sides)
            out << " " << md_escape(s.label) << " | % |";
        out << "\n|---|";
        for (size_t i = 0; i < report.sides.size(); i++)
            out << "---:|---:|";
        out << "\n";
        auto [first, last] = occupied(h);
        for (size_t b = first; b < last; b++) {
            out << "| " << md_escape(h.labels[b]) << " |";
            for (const auto& counts : h.counts) {
                double all = total(counts), c = counts.empty() ? 0 : counts[b];
                out << " " << format_number(c) << " | "
                    << (all > 0 ? fmt("%.1f", c / all * 100) : "-") << " |";
            }
            out << "\n";
        }
    }
    return out.str();
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string csv_number(std::optional<double> x) {
    return x ? fmt("%.10g", *x) : "";
}

std::string render_csv(const Report& report) {
    std::string out = "metric,group,name,unit,agg,better,side,label,n,mean,stddev,cov,min,max,"
                      "change_pct,p,significant,verdict\n";
    for (const auto& m : report.metrics)
        for (size_t i = 0; i < m.sides.size(); i++) {
            const auto& s = m.sides[i].summary;
            const Change* c = i ? &m.changes[i - 1] : nullptr;
            std::vector<std::string> f = {m.id,
                                          m.group,
                                          m.name,
                                          m.unit,
                                          std::string(stats::agg_label(m.agg)),
                                          better_name(m.better),
                                          std::to_string(i),
                                          report.sides[i].label,
                                          s ? std::to_string(s->n) : "0",
                                          csv_number(s ? std::optional(s->mean) : std::nullopt),
                                          csv_number(s ? std::optional(s->stddev) : std::nullopt),
                                          csv_number(s ? s->cov : std::nullopt),
                                          csv_number(s ? std::optional(s->min) : std::nullopt),
                                          csv_number(s ? std::optional(s->max) : std::nullopt),
                                          csv_number(c ? c->pct : 0.0),
                                          csv_number(c ? c->p : std::nullopt),
                                          !c || c->kind != ChangeKind::unqualified
                                              ? (c && c->significant ? "1" : "0")
                                              : "", // no verdict: neither
                                          c ? kind_name(c->kind) : "base"};
            for (size_t k = 0; k < f.size(); k++)
                out += (k ? "," : "") + csv_field(f[k]);
            out += "\n";
        }
    return out;
}

} // namespace

nlohmann::json report_json(const Report& report) {
    json sides = json::array();
    for (const auto& s : report.sides)
        sides.push_back({{"label", s.label},
                         {"files", s.files},
                         {"run_ids", s.run_ids},
                         {"kernel_release", s.kernel_release},
                         {"build_id", s.build_id},
                         {"qemu", s.qemu},
                         {"image", s.image}});
    auto opt = [](std::optional<double> x) { return x ? json(*x) : json(); };
    json metrics = json::array();
    for (const auto& m : report.metrics) {
        json per_side = json::array();
        for (size_t i = 0; i < m.sides.size(); i++) {
            const auto& st = m.sides[i];
            json j = {{"samples", st.samples}};
            if (st.summary)
                j.update({{"n", st.summary->n},
                          {"mean", st.summary->mean},
                          {"stddev", st.summary->stddev},
                          {"cov", opt(st.summary->cov)},
                          {"min", st.summary->min},
                          {"max", st.summary->max}});
            else
                j["error"] = st.error;
            if (i) {
                const Change& c = m.changes[i - 1];
                const bool judged = c.kind != ChangeKind::unqualified;
                j["change"] = {{"pct", opt(c.pct)},
                               {"p", opt(c.p)},
                               {"significant", judged ? json(c.significant) : json()},
                               {"verdict", kind_name(c.kind)},
                               {"note", c.note}};
            }
            per_side.push_back(std::move(j));
        }
        metrics.push_back({{"id", m.id},
                           {"group", m.group},
                           {"name", m.name},
                           {"unit", m.unit},
                           {"agg", std::string(stats::agg_label(m.agg))},
                           {"better", better_name(m.better)},
                           {"sides", std::move(per_side)}});
    }
    json hists = json::array();
    for (const auto& h : report.histograms) {
        json changes = json::array();
        for (const auto& c : h.changes) {
            json j = {{"significant", c.unqualified ? json() : json(c.significant)},
                      {"note", c.note}};
            if (c.test)
                j.update({{"chi2", c.test->chi2},
                          {"df", c.test->df},
                          {"p", c.test->p},
                          {"ks_d", c.test->ks_d}});
            changes.push_back(std::move(j));
        }
        hists.push_back({{"id", h.id},
                         {"unit", h.unit},
                         {"buckets", h.labels},
                         {"counts", h.counts},
                         {"changes", std::move(changes)}});
    }
    return {{"initbench_compare", 1},
            {"method", method_name(report.options.method)},
            {"method_text", method_sentence(report.options)},
            {"confidence", report.options.confidence},
            {"min_effect_pct", report.options.min_effect_pct},
            {"clock", report.clock},
            {"unit", report.unit == SampleUnit::run ? "run" : "round"},
            {"clock_detail", report.clock_detail},
            {"verdicts", report.no_verdict.empty()},
            {"no_verdict", report.no_verdict.empty() ? json() : json(report.no_verdict)},
            {"sides", std::move(sides)},
            {"warnings", report.warnings},
            {"metrics", std::move(metrics)},
            {"histograms", std::move(hists)}};
}

std::string render(const Report& report, const RenderOptions& options) {
    switch (options.format) {
    case Format::json:
        return report_json(report).dump(1) + "\n";
    case Format::csv:
        return render_csv(report);
    case Format::markdown:
        return render_markdown(report);
    case Format::terminal:
    case Format::text:
        break;
    }
    return render_text(report, options);
}

// ---- --fail-on ---------------------------------------------------------------------------

Result<FailRule> parse_fail_rule(std::string_view text) {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
        return Error{"--fail-on '" + std::string(text) +
                     "': expected METRIC:+N%, METRIC:-N% or METRIC:N%"};
    FailRule rule;
    rule.text = std::string(text);
    rule.pattern = std::string(text.substr(0, colon));
    std::string amount(text.substr(colon + 1));
    if (!amount.empty() && amount.back() == '%')
        amount.pop_back();
    if (!amount.empty() && (amount[0] == '+' || amount[0] == '-')) {
        rule.sign = amount[0] == '+' ? 1 : -1;
        amount.erase(0, 1);
    }
    size_t used = 0;
    try {
        rule.pct = std::stod(amount, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (amount.empty() || used != amount.size() || !std::isfinite(rule.pct) || rule.pct < 0)
        return Error{"--fail-on '" + rule.text + "': the change must be a percentage like +5%"};
    return rule;
}

bool metric_matches(const std::string& pattern, const std::string& id, const std::string& name) {
    return ::fnmatch(pattern.c_str(), id.c_str(), 0) == 0 ||
           ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

RuleOutcome apply_fail_rules(const Report& report, const std::vector<FailRule>& rules) {
    RuleOutcome out;
    for (const auto& rule : rules) {
        bool matched = false;
        for (const auto& m : report.metrics) {
            if (!metric_matches(rule.pattern, m.id, m.name))
                continue;
            matched = true;
            for (size_t i = 0; i < m.changes.size(); i++) {
                const Change& c = m.changes[i];
                // An unjudged change still fails CI on its size, and says so.
                const bool unqualified = c.kind == ChangeKind::unqualified;
                if (!(c.significant || unqualified) || !c.pct)
                    continue;
                bool fires = rule.sign > 0   ? *c.pct >= rule.pct
                             : rule.sign < 0 ? *c.pct <= -rule.pct
                                             : std::fabs(*c.pct) >= rule.pct;
                if (!fires)
                    continue;
                out.fired.push_back(rule.text + ": " + m.id + " " + fmt("%+.2f%%", *c.pct) + " (" +
                                    report.sides[i + 1].label + " vs " + report.sides[0].label +
                                    ")" +
                                    (unqualified ? " on the effect size alone, unqualified by "
                                                   "significance"
                                                 : ""));
                out.unqualified = out.unqualified || unqualified;
            }
        }
        if (!matched)
            out.unmatched.push_back(rule.text);
    }
    return out;
}

// ---- the subcommand ----------------------------------------------------------------------

namespace {

constexpr const char* kCompareHelp = R"(Each SIDE is a results file, several joined by commas, or a directory of *.json
files; the files of a side are pooled. The first SIDE is the base; every other one is
compared with it. A sample is one run (the mean of its rounds) when every side has two runs
or more, else one round (--unit). Rounds of one boot a side are judged only under --clock
icount: on other clocks the changes are shown as ~...~ with no verdict, and --fail-on
fires on the change alone. Details: docs/compare.md.

Exit codes:
  0  compared; no --fail-on rule fired
  1  a --fail-on rule fired (on the change alone where there is no verdict)
  2  bad command line, or a --fail-on rule that matches no metric
  3  refused: unreadable or incomplete results, mixed clocks, different experiments)";

Result<Side> load_side(const std::string& arg, const std::string& label) {
    Side side{label, {}};
    auto paths = side_files(arg);
    if (!paths)
        return paths.error();
    for (const auto& p : paths.value()) {
        auto run = read_results(p);
        if (!run)
            return run.error();
        side.runs.push_back(std::move(run.value()));
    }
    return side;
}

std::string default_label(const std::string& arg, size_t index, size_t count) {
    if (arg.find(',') == std::string::npos) {
        std::string stem = fs::path(arg).filename().string();
        if (stem.empty())
            stem = fs::path(arg).parent_path().filename().string();
        if (stem.size() > 5 && stem.ends_with(".json"))
            stem.resize(stem.size() - 5);
        if (!stem.empty() && stem.size() <= 24)
            return stem;
    }
    if (index == 0)
        return "base";
    return count == 2 ? "new" : "new" + std::to_string(index);
}

struct CompareCli {
    std::vector<std::string> sides, labels, fail_on, only;
    std::string format = "auto", method = "welch", unit = "auto";
    double confidence = 0.95, min_effect = 5;
    bool force = false, details = false;
};

Format parse_format(const std::string& f) {
    if (f == "terminal")
        return Format::terminal;
    if (f == "markdown")
        return Format::markdown;
    if (f == "json")
        return Format::json;
    if (f == "csv")
        return Format::csv;
    if (f == "text")
        return Format::text;
    return ::isatty(1) ? Format::terminal : Format::text;
}

void keep_only(Report& report, const std::vector<std::string>& patterns) {
    if (patterns.empty())
        return;
    auto wanted = [&](const std::string& id, const std::string& name) {
        return std::any_of(patterns.begin(), patterns.end(),
                           [&](const std::string& p) { return metric_matches(p, id, name); });
    };
    std::erase_if(report.metrics, [&](const MetricRow& m) { return !wanted(m.id, m.name); });
    std::erase_if(report.histograms, [&](const HistRow& h) { return !wanted(h.id, h.name); });
}

int run_compare(const CompareCli& cli) {
    std::vector<FailRule> rules;
    for (const auto& text : cli.fail_on) {
        auto rule = parse_fail_rule(text);
        if (!rule) {
            std::fprintf(stderr, "initbench compare: %s\n", rule.error().message().c_str());
            return kCompareUsage;
        }
        rules.push_back(rule.value());
    }
    if (!cli.labels.empty() && cli.labels.size() != cli.sides.size()) {
        std::fprintf(stderr, "initbench compare: %zu labels for %zu sides\n", cli.labels.size(),
                     cli.sides.size());
        return kCompareUsage;
    }
    std::vector<Side> sides;
    for (size_t i = 0; i < cli.sides.size(); i++) {
        std::string label =
            cli.labels.empty() ? default_label(cli.sides[i], i, cli.sides.size()) : cli.labels[i];
        auto side = load_side(cli.sides[i], label);
        if (!side) {
            std::fprintf(stderr, "initbench compare: refused: %s\n",
                         side.error().message().c_str());
            return kCompareRefused;
        }
        sides.push_back(std::move(side.value()));
    }
    // Two sides named alike (files of the same name in two directories) need telling apart.
    for (size_t i = 0; i < sides.size(); i++)
        for (size_t j = 0; j < i; j++)
            if (sides[i].label == sides[j].label)
                sides[i].label += "#" + std::to_string(i + 1);

    CompareOptions options;
    options.method = cli.method == "lkp"         ? Method::lkp
                     : cli.method == "threshold" ? Method::threshold
                                                 : Method::welch;
    options.confidence = cli.confidence;
    options.min_effect_pct = cli.min_effect;
    options.force = cli.force;
    options.unit = cli.unit == "round" ? SampleUnit::round
                   : cli.unit == "run" ? SampleUnit::run
                                       : SampleUnit::auto_;
    auto report = compare_sides(sides, options);
    if (!report) {
        std::fprintf(stderr, "initbench compare: refused: %s\n", report.error().message().c_str());
        return kCompareRefused;
    }
    keep_only(report.value(), cli.only);
    for (const auto& w : report.value().environment_warnings)
        std::fprintf(stderr, "initbench compare: warning: %s\n", w.c_str());
    std::cout << render(report.value(), {parse_format(cli.format), cli.details}) << std::flush;

    RuleOutcome outcome = apply_fail_rules(report.value(), rules);
    for (const auto& rule : outcome.unmatched)
        std::fprintf(stderr, "initbench compare: --fail-on %s matches no metric\n", rule.c_str());
    for (const auto& line : outcome.fired)
        std::fprintf(stderr, "FAIL %s\n", line.c_str());
    if (outcome.unqualified)
        std::fprintf(stderr,
                     "initbench compare: note: the failure is on the effect size alone, "
                     "unqualified by significance: %s\n",
                     report.value().no_verdict.c_str());
    if (!outcome.unmatched.empty())
        return kCompareUsage;
    return outcome.fired.empty() ? kCompareOk : kCompareFailed;
}

} // namespace

void add_compare_command(CLI::App& app) {
    auto cli = std::make_shared<CompareCli>();
    auto* cmd = app.add_subcommand("compare", "Compare the results of kernels with statistics");
    cmd->footer(kCompareHelp);
    cmd->add_option("sides", cli->sides, "SIDE SIDE [SIDE ...]: base first")
        ->required()
        ->expected(2, -1);
    cmd->add_option("--format", cli->format, "auto: terminal on a terminal, text otherwise")
        ->check(CLI::IsMember({"auto", "terminal", "text", "markdown", "json", "csv"}))
        ->capture_default_str();
    cmd->add_option("--method", cli->method,
                    "welch: Welch's t-test; lkp: >= 3 samples a side and separated ranges; "
                    "threshold: the minimum effect alone (deterministic clocks)")
        ->check(CLI::IsMember({"welch", "lkp", "threshold"}))
        ->capture_default_str();
    cmd->add_option("--unit", cli->unit,
                    "What one sample is: round (judged on any clock), run (a file: the mean of "
                    "its rounds), or auto (runs when every side has two or more; else rounds, "
                    "judged only under --clock icount)")
        ->check(CLI::IsMember({"auto", "round", "run"}))
        ->capture_default_str();
    cmd->add_option("--confidence", cli->confidence, "Confidence level of the tests")
        ->check(CLI::Range(0.5, 0.9999))
        ->capture_default_str();
    cmd->add_option("--min-effect", cli->min_effect,
                    "Percent change below which nothing is significant")
        ->check(CLI::Range(0.0, 1000.0))
        ->capture_default_str();
    cmd->add_option("--fail-on", cli->fail_on,
                    "METRIC:+N% / METRIC:-N% / METRIC:N%: exit 1 on such a significant change, or "
                    "on such a change alone where there is no verdict (METRIC: a glob on the "
                    "metric's id or name)")
        ->allow_extra_args(false); // one value per use: `--metric X a.json b.json` keeps the sides
    cmd->add_option("--labels", cli->labels, "Names of the sides, comma-separated")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_option("--metric", cli->only, "Show only metrics matching this glob (repeatable)")
        ->allow_extra_args(false);
    cmd->add_flag("--details", cli->details, "Also print min, max, samples and p-values");
    cmd->add_flag("--force", cli->force, "Compare different experiments (never different clocks)");
    cmd->callback([cli] {
        int rc = kCompareRefused;
        try {
            rc = run_compare(*cli);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "initbench compare: %s\n", e.what());
        }
        if (rc != kCompareOk)
            throw CLI::RuntimeError(rc);
    });
}

// ---- for `initbench report`, which reads sides as compare does ---------------------------

Result<std::vector<std::string>> side_files(const std::string& arg) {
    std::vector<std::string> paths;
    std::stringstream list(arg);
    std::string item;
    while (std::getline(list, item, ',')) {
        if (item.empty())
            continue;
        std::error_code ec;
        if (!fs::is_directory(item, ec)) {
            paths.push_back(item);
            continue;
        }
        std::vector<std::string> found;
        for (const auto& entry : fs::directory_iterator(item, ec))
            if (entry.is_regular_file() && entry.path().extension() == ".json")
                found.push_back(entry.path().string());
        if (found.empty())
            return Error{item + ": no *.json files"};
        std::sort(found.begin(), found.end());
        paths.insert(paths.end(), found.begin(), found.end());
    }
    if (paths.empty())
        return Error{"'" + arg + "': no results files"};
    return paths;
}

std::string side_label(const std::string& arg, size_t index, size_t count) {
    return default_label(arg, index, count);
}

std::string metric_group(const nlohmann::json& record) {
    return record_group(record);
}

} // namespace initbench
