// The page model of `initbench report`: files as compare reads them, compare's statistics,
// and what the statistics do not cover (per-interval samples, counters, problems).
#include "host/report/report.h"

#include "sys/sys.h"

#include <filesystem>
#include <map>
#include <numeric>

namespace initbench::report {
namespace {

using json = nlohmann::json;

std::string str(const json& j, const char* key) {
    if (!j.is_object())
        return "";
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

const json& records_of(const RunDoc& f) {
    static const json none = json::array();
    if (!f.doc.is_object())
        return none;
    auto it = f.doc.find("records");
    return it != f.doc.end() && it->is_array() ? *it : none;
}

RunDoc read_doc(const std::string& path) {
    RunDoc f;
    f.path = path;
    auto read = read_whole_file(path);
    if (!read) {
        f.refused = read.error().message();
        return f;
    }
    const std::string& text = read.value();
    f.doc = json::parse(text, nullptr, false);
    if (f.doc.is_discarded())
        f.doc = nullptr;
    auto run = parse_results(text, path);
    if (run)
        f.run = std::move(run.value());
    else
        f.refused = run.error().message();
    return f;
}

// Sides summarised one at a time (when compare refuses to put them side by side), merged
// into the shape of one comparison without changes.
json merge_alone(const std::vector<json>& alone) {
    json merged = alone.front();
    merged["sides"] = json::array();
    merged["warnings"] = json::array();
    merged["metrics"] = json::array();
    merged["histograms"] = json::array();
    std::map<std::string, size_t> metric_at, hist_at;
    for (size_t s = 0; s < alone.size(); s++) {
        merged["sides"].push_back(alone[s]["sides"][0]);
        for (const auto& w : alone[s]["warnings"])
            merged["warnings"].push_back(w);
        for (const auto& m : alone[s]["metrics"]) {
            auto [it, fresh] = metric_at.try_emplace(m["id"].get<std::string>(), merged["metrics"].size());
            if (fresh) {
                json row = m;
                row["sides"] = json::array();
                merged["metrics"].push_back(row);
            }
            json& sides = merged["metrics"][it->second]["sides"];
            while (sides.size() < s)
                sides.push_back({{"samples", json::array()}, {"error", "missing"}});
            sides.push_back(m["sides"][0]);
        }
        for (const auto& h : alone[s]["histograms"]) {
            auto [it, fresh] = hist_at.try_emplace(h["id"].get<std::string>(), merged["histograms"].size());
            if (fresh) {
                json row = h;
                row["counts"] = json::array();
                row["changes"] = json::array();
                merged["histograms"].push_back(row);
            }
            json& row = merged["histograms"][it->second];
            // Buckets are the union by label, as compare builds them.
            json counts = json::array();
            for (const auto& label : h["buckets"]) {
                bool known = false;
                for (const auto& l : row["buckets"])
                    known = known || l == label;
                if (!known)
                    row["buckets"].push_back(label);
            }
            for (const auto& label : row["buckets"]) {
                double c = 0;
                for (size_t b = 0; b < h["buckets"].size(); b++)
                    if (h["buckets"][b] == label && !h["counts"][0].empty())
                        c = h["counts"][0][b].get<double>();
                counts.push_back(c);
            }
            while (row["counts"].size() < s)
                row["counts"].push_back(json::array());
            row["counts"].push_back(counts);
        }
    }
    for (auto& m : merged["metrics"])
        while (m["sides"].size() < alone.size())
            m["sides"].push_back({{"samples", json::array()}, {"error", "missing"}});
    for (auto& h : merged["histograms"])
        while (h["counts"].size() < alone.size())
            h["counts"].push_back(json::array());
    return merged;
}

double mean(const std::vector<double>& xs) {
    return std::accumulate(xs.begin(), xs.end(), 0.0) / double(xs.size());
}

} // namespace

Result<std::vector<PageSide>> load_sides(const std::vector<std::string>& args,
                                         const std::vector<std::string>& labels) {
    if (!labels.empty() && labels.size() != args.size())
        return Error{std::to_string(labels.size()) + " labels for " + std::to_string(args.size()) + " sides"};
    auto expanded = expand_sides(args, labels);
    if (!expanded)
        return expanded.error();
    const auto& each = expanded.value().args;
    const auto& named = expanded.value().labels;
    std::vector<PageSide> sides;
    for (size_t i = 0; i < each.size(); i++) {
        auto paths = side_files(each[i]);
        if (!paths)
            return paths.error();
        PageSide side{named[i], {}};
        std::vector<RunFile> runs;
        for (const auto& p : paths.value()) {
            side.files.push_back(read_doc(p));
            if (side.files.back().run)
                runs.push_back(*side.files.back().run);
        }
        std::error_code ec;
        if (std::filesystem::is_directory(each[i], ec))
            if (const std::string differ = pooled_difference(runs); !differ.empty())
                return Error{each[i] + ": " + differ + ": give each its own side (an ab directory is split by side)"};
        sides.push_back(std::move(side));
    }
    return sides;
}

Page analyse(std::vector<PageSide> sides, const CompareOptions& options) {
    Page page;
    page.sides = std::move(sides);
    std::vector<Side> usable;
    for (size_t i = 0; i < page.sides.size(); i++) {
        Side side{page.sides[i].label, {}};
        for (const auto& f : page.sides[i].files)
            if (f.run)
                side.runs.push_back(*f.run);
        if (side.runs.empty())
            continue;
        usable.push_back(std::move(side));
        page.stat_sides.push_back(i);
    }
    if (usable.empty())
        return page;
    auto together = compare_sides(usable, options);
    if (together) {
        page.stats = report_json(together.value());
        return page;
    }
    page.comparison_refused = together.error().message();
    std::vector<json> alone;
    for (const auto& side : usable) {
        auto one = compare_sides({side}, options);
        if (!one) { // refused even alone (a side mixing clocks): no numbers from it
            page.comparison_refused += "; " + side.label + ": " + one.error().message();
            continue;
        }
        alone.push_back(report_json(one.value()));
    }
    if (alone.size() == usable.size())
        page.stats = merge_alone(alone);
    else
        page.stat_sides.clear();
    return page;
}

std::vector<TimeSeries> time_series(const Page& page) {
    std::vector<TimeSeries> out;
    std::map<std::pair<std::string, std::string>, size_t> at;
    for (size_t s = 0; s < page.sides.size(); s++) {
        for (const auto& f : page.sides[s].files) {
            if (!f.run)
                continue;
            std::map<std::pair<std::string, std::string>, double> offset; // per series, this run
            std::map<std::pair<double, std::string>, int> seen;           // repeated phases, as compare names them
            for (const auto& r : f.run->records) {
                if (str(r, "type") != "phase" || !r.contains("samples") || !r["samples"].is_object())
                    continue;
                std::string group = metric_group(r);
                double round = r.value("round", 0.0);
                if (int n = ++seen[{round, group}]; n > 1)
                    group += "#" + std::to_string(n);
                const json& samples = r["samples"];
                double interval = samples.value("interval_s", 1.0);
                if (!(interval > 0))
                    interval = 1;
                for (const auto& [key, values] : samples.items()) {
                    if (!values.is_array() || values.empty() || !values[0].is_number())
                        continue;
                    auto [it, fresh] = at.try_emplace({group, key}, out.size());
                    if (fresh)
                        out.push_back({group, key, std::vector<std::vector<RunLine>>(page.sides.size())});
                    auto& runs = out[it->second].runs_per_side[s];
                    double& x0 = offset[{group, key}];
                    if (x0 == 0)
                        runs.emplace_back(); // this run's line
                    Segment segment;
                    for (size_t i = 0; i < values.size(); i++)
                        if (values[i].is_number())
                            segment.emplace_back(x0 + (double(i) + 0.5) * interval, values[i].get<double>());
                    runs.back().push_back(std::move(segment));
                    x0 += double(values.size()) * interval;
                }
            }
        }
    }
    return out;
}

std::vector<CounterRow> counter_rows(const Page& page) {
    struct Acc {
        std::vector<double> values, derived, stderr_pct;
        std::string unit, derived_unit, why_not;
        size_t records = 0;
    };
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, std::vector<Acc>> acc;
    for (size_t s = 0; s < page.sides.size(); s++)
        for (const auto& f : page.sides[s].files) {
            if (!f.run)
                continue;
            for (const auto& r : f.run->records) {
                auto counters = r.find("counters");
                if (counters == r.end() || !counters->is_array())
                    continue;
                const bool command = str(r, "type") == "command";
                std::string group = !command ? metric_group(r)
                                    : str(r, "kind") == "module" ? "module " + str(r, "module")
                                                                 : "command " + str(r, "command");
                for (const auto& c : *counters) {
                    std::pair<std::string, std::string> key{group, str(c, "event")};
                    auto [it, fresh] = acc.try_emplace(key, std::vector<Acc>(page.sides.size()));
                    if (fresh)
                        order.push_back(key);
                    Acc& a = it->second[s];
                    a.records++;
                    a.unit = str(c, "unit");
                    // A command record carries the mean over its runs; a phase's its window's count.
                    const char* value_key = command ? "mean" : "value";
                    if (c.value("supported", true) == false || c.value("counted", true) == false ||
                        !c.contains(value_key) || !c[value_key].is_number()) {
                        a.why_not = str(c, "reason").empty() ? "not counted" : str(c, "reason");
                        continue;
                    }
                    a.values.push_back(c[value_key].get<double>());
                    if (c.contains("rel_stderr_pct") && c["rel_stderr_pct"].is_number())
                        a.stderr_pct.push_back(c["rel_stderr_pct"].get<double>());
                    if (c.contains("derived") && c["derived"].is_object() && c["derived"].contains("value") &&
                        c["derived"]["value"].is_number()) {
                        a.derived.push_back(c["derived"]["value"].get<double>());
                        a.derived_unit = str(c["derived"], "unit");
                    }
                }
            }
        }
    std::vector<CounterRow> rows;
    for (const auto& key : order) {
        CounterRow row{key.first, key.second, {}};
        for (const Acc& a : acc[key]) {
            CounterCell cell;
            cell.present = a.records > 0;
            cell.records = a.records;
            cell.unit = a.unit;
            cell.derived_unit = a.derived_unit;
            cell.why_not = a.why_not;
            if (!a.values.empty())
                cell.value = mean(a.values);
            if (!a.derived.empty())
                cell.derived = mean(a.derived);
            if (!a.stderr_pct.empty())
                cell.rel_stderr_pct = mean(a.stderr_pct);
            row.sides.push_back(std::move(cell));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<Problem> problems(const Page& page) {
    std::vector<Problem> out;
    if (!page.comparison_refused.empty())
        out.push_back({"error", "", "compare refused the comparison: " + page.comparison_refused +
                                        ". Each side is summarised alone."});
    for (const auto& side : page.sides)
        for (const auto& f : side.files)
            if (!f.run)
                out.push_back({"error", f.path, "refused, no numbers are taken from it: " + f.refused});
    if (page.stats.is_object()) {
        if (auto nv = page.stats.find("no_verdict"); nv != page.stats.end() && nv->is_string())
            out.push_back({"warning", "", "no verdicts: " + nv->get<std::string>()});
        for (const auto& w : page.stats.value("warnings", json::array()))
            if (w.is_string())
                out.push_back({"warning", "", w.get<std::string>()});
    }
    for (const auto& side : page.sides)
        for (const auto& f : side.files) {
            for (const auto& r : records_of(f)) {
                const std::string type = str(r, "type");
                if (type == "kernel") {
                    std::string context = str(r, "context");
                    if (auto nl = context.find('\n'); nl != std::string::npos)
                        context.resize(nl);
                    out.push_back({"error", f.path, "kernel " + str(r, "kind") + ": " +
                                                        (context.empty() ? str(r, "line") : context)});
                } else if (type == "warning" || type == "error") {
                    out.push_back({type, f.path, str(r, "what") + ": " + str(r, "reason")});
                }
            }
            if (!f.doc.is_object() || !f.doc.contains("log") || !f.doc["log"].is_object())
                continue;
            for (const auto& e : f.doc["log"].value("kernel_events", json::array()))
                out.push_back({"error", f.path, "console: " + str(e, "kind") + ": " + str(e, "message")});
        }
    return out;
}

} // namespace initbench::report
