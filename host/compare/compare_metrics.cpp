// Metrics and histograms of records as their descriptions declare them (common/record_types.h):
// a phase's metrics, a probe's, a command's ..., grouped by what the record measures.
#include "host/compare/compare.h"

#include "common/record_types.h"
#include "common/json_fields.h"
#include "common/text.h"

#include <map>

namespace initbench {
namespace {

using nlohmann::json;

Better parse_better(const std::string& s) {
    return s == "higher" ? Better::higher : s == "lower" ? Better::lower : Better::unknown;
}

// PHASE/IDENTITY[DIMENSIONS], each part as the record's description declares it
// (common/record_types.h): "fork/funclat:kernel_clone", "fork/wakeups", "command/exec".
std::string record_group(const json& r) {
    const std::string type = json_str(r, "type");
    std::string group = json_str(r, "phase", type);
    std::string subject;
    for (const auto& s : record_identity(r))
        subject += (subject.empty() ? "" : ":") + s;
    if (subject.empty() && type != "phase")
        subject = type;
    if (!subject.empty())
        group += "/" + subject;
    std::string dims;
    for (const auto& [key, n] : record_dimensions(r))
        dims += (dims.empty() ? "" : ",") + key + "=" + number_label(n);
    return dims.empty() ? group : group + "[" + dims + "]";
}

class Collector {
public:
    // What the record's description declares (common/record_types.h); a record type it
    // does not describe gives nothing.
    void record(const json& r, const std::string& group, size_t run) {
        run_ = run;
        for (const MeasuredValue& m : record_metrics(r)) {
            Series& s = series(group, m.name);
            s.unit = m.unit.empty() ? s.unit : m.unit;
            s.agg = parse_agg(m.agg);
            s.better = parse_better(m.better);
            add(s, m.value);
        }
        for (const auto& [decl, v] : record_histograms(r)) {
            const std::string name(decl->field);
            if (decl->shape == HistogramShape::log2)
                add_keyed(group, name, *v, std::string(decl->unit));
            else
                add_linear(group, name, *v);
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
            for (const auto& [run, counts] : h.per_run) {
                std::vector<double> row;
                for (const auto& [key, bucket] : h.buckets)
                    row.push_back(counts.count(key) ? counts.at(key) : 0);
                out.run_counts.push_back(std::move(row));
            }
            e.histograms.push_back(std::move(out));
        }
        return e;
    }

private:
    struct PooledHist {
        HistSeries series;
        std::map<double, std::pair<std::string, double>> buckets; // order key -> label, count
        std::map<size_t, std::map<double, double>> per_run;        // run -> order key -> count
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
            h.per_run[run_][key] += e[1].get<double>();
        }
    }

    void add_linear(const std::string& group, const std::string& name, const json& v) {
        const json& buckets = v["buckets"];
        auto min = json_num(v, "min"), step = json_num(v, "step");
        const std::string unit = json_str(v, "unit");
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
            h.per_run[run_][order] += count;
        };
        if (auto under = json_num(v, "under"))
            put(-1, min ? "<" + number_label(*min) : "under", *under);
        for (size_t i = 0; i < n; i++) {
            std::string label = "#" + std::to_string(i);
            if (min && step)
                label = "[" + number_label(*min + *step * double(i)) + "," +
                        number_label(*min + *step * double(i + 1)) + ")";
            put(double(i), label, buckets[i].get<double>());
        }
        if (auto over = json_num(v, "over"))
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
            int n = ++seen[{json_num(r, "round").value_or(0), group}];
            collector.record(r, n > 1 ? group + "#" + std::to_string(n) : group, index);
        }
    }
    return collector.take();
}

std::string metric_group(const nlohmann::json& record) {
    return record_group(record);
}

} // namespace initbench
