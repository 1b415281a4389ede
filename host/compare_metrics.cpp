// Metrics and histograms found in records by their structure: a phase's declared metrics, a
// probe's numbers and histograms, grouped by what the record measures.
#include "host/compare.h"

#include "host/compare_fields.h"

#include <algorithm>
#include <map>
#include <set>

namespace initbench {
namespace {

using nlohmann::json;
using namespace compare_fields;

// Strings that name what a record measures (a probe and its function, a counter ...).
const std::vector<const char*> kIdentityStrings = {"probe",   "function", "name",    "event",
                                                   "from",    "to",       "kthread", "comm",
                                                   "counter", "target",   "cmd",     "module"};
// Numbers that tell records of one phase apart (a tbench sweep's client count ...).
// Not "threads", "processes" or "tasks": the wakeups probe measures those (distinct tasks
// woken), and as dimensions each round's values made a group of their own that never paired.
const std::vector<const char*> kDimensionNumbers = {
    "clients", "groups", "pairs", "size", "msg_size", "bytes", "cpu", "instance", "index"};
const std::set<std::string> kBookkeeping = {"v", "type", "phase", "round", "seq"};
// Fields of a record whose "unit" they are in (funclat's avg, min, max, sum in ns).
const std::set<std::string> kInRecordUnit = {"avg",    "min",    "max",   "sum",  "mean",
                                             "stddev", "p50",    "p90",   "p95",  "p99",
                                             "p999",   "median", "total", "value"};

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
            dims += (dims.empty() ? "" : ",") + std::string(key) + "=" + number_label(*n);
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

// The first naming string of a list's entry ("event": "cycles"), "" when it has none.
std::string entry_name(const json& entry) {
    for (const char* key : kIdentityStrings)
        if (auto s = str_field(entry, key); !s.empty())
            return s;
    return "";
}

// [{"event": "cycles", "value": 5}, ...]: entries that each name what they measure.
bool is_named_list(const json& v) {
    if (!v.is_array() || v.empty())
        return false;
    return std::all_of(v.begin(), v.end(),
                       [](const json& e) { return e.is_object() && !entry_name(e).empty(); });
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
            } else if (depth < 3 && is_named_list(v)) {
                flatten_entries(v, group, name, unit, depth);
            }
        }
    }

    // Each entry by its name: perf's counters.cycles.value, kthread's threads.rcu_gp.ticks.
    // An entry that could not be measured gives no samples; a pid names an entry, it is not
    // a measurement.
    void flatten_entries(const json& list, const std::string& group, const std::string& name,
                         const std::string& unit, int depth) {
        std::map<std::string, int> seen;
        for (const auto& entry : list) {
            if (const json* supported = field(entry, "supported");
                supported && supported->is_boolean() && !supported->get<bool>())
                continue;
            std::string label = entry_name(entry);
            if (int n = ++seen[label]; n > 1)
                label += "#" + std::to_string(n);
            json measured = entry;
            measured.erase("pid");
            flatten(measured, group, name + "." + label + ".", str_field(entry, "unit", unit),
                    depth + 1);
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
            bucket.first = number_label(key);
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
            put(-1, min ? "<" + number_label(*min) : "under", *under);
        for (size_t i = 0; i < n; i++) {
            std::string label = "#" + std::to_string(i);
            if (min && step)
                label = "[" + number_label(*min + *step * double(i)) + "," +
                        number_label(*min + *step * double(i + 1)) + ")";
            put(double(i), label, buckets[i].get<double>());
        }
        if (auto over = num_field(v, "over"))
            put(double(n), min && step ? ">=" + number_label(*min + *step * double(n)) : "over",
                *over);
    }

    size_t run_ = 0;
    std::vector<Series> metrics_;
    std::map<std::string, size_t> metric_index_;
    std::vector<PooledHist> hists_;
    std::map<std::string, size_t> hist_index_;
};

} // namespace

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

std::string metric_group(const nlohmann::json& record) {
    return record_group(record);
}

} // namespace initbench
