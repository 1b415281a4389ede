// The report page: problems first, then the phases at a glance with compare's verdicts, the
// identity of every run, each phase over time with its distributions, the counters, and
// every other metric compare found.
#include "host/report/report_html.h"

#include "common/text.h"
#include "host/compare/compare_render.h"
#include "host/report/html_text.h"
#include "host/report/report_plots.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace initbench::report {
namespace {

using json = nlohmann::json;

struct Builder {
    const Page& page;
    std::ostringstream html;
    std::vector<plots::Plot> plot_list;

    // A placeholder for the plot's SVG, filled in once gnuplot has drawn them all.
    std::string plot(plots::Plot p) {
        plot_list.push_back(std::move(p));
        return "@@PLOT" + std::to_string(plot_list.size() - 1) + "@@";
    }

    std::string side_label(size_t stat_index) const {
        return page.sides[page.stat_sides[stat_index]].label;
    }
    size_t colour_index(size_t stat_index) const { return page.stat_sides[stat_index]; }
    bool comparing() const { return page.stat_sides.size() > 1 && page.comparison_refused.empty(); }

    void head() {
        std::string title = "initbench report";
        std::vector<std::string> labels;
        for (const auto& s : page.sides)
            labels.push_back(s.label);
        for (size_t i = 0; i < labels.size(); i++)
            title += (i ? " vs " : ": ") + labels[i];
        html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
             << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             << "<title>" << esc(title) << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n"
             << "<h1>" << esc(title) << "</h1>\n<p class=\"lead\">";
        for (size_t i = 0; i < page.sides.size(); i++) {
            const auto& s = page.sides[i];
            size_t ok = 0;
            for (const auto& f : s.files)
                ok += f.run ? 1 : 0;
            std::string release = "?";
            for (const auto& f : s.files)
                if (f.run) {
                    release = f.run->kernel_release;
                    break;
                }
            html << (i ? " · " : "") << "<span class=\"swatch\" style=\"background:" << colour(i)
                 << "\"></span><b>" << esc(s.label) << "</b> " << esc(release) << ", " << ok << " run"
                 << (ok == 1 ? "" : "s");
            if (ok != s.files.size())
                html << " <span class=\"bad\">(" << s.files.size() - ok << " refused)</span>";
        }
        html << "</p>\n";
        headline();
        if (page.stats.is_object())
            html << "<p class=\"method\">" << esc(str(page.stats, "method_text")) << "; clock "
                 << esc(compare_render::clock_sentence(str(page.stats, "clock"), str(page.stats, "clock_detail")))
                 << "; one sample per " << esc(str(page.stats, "unit"))
                 << (page.sides.size() > 1 ? "; the first side is the base" : "") << ".</p>\n";
    }

    // The verdicts first, as compare's text opens with them (the same lines): DIFFERENT, then
    // UNKNOWN with what would decide it, then SAME.
    void headline() {
        const json& lines = at(page.stats, "verdict_lines");
        if (!lines.is_array() || lines.empty())
            return;
        html << "<div class=\"box headline\" id=\"verdicts\"><b>Verdicts</b><ul>\n";
        for (const auto& l : lines) {
            const std::string line = l.is_string() ? l.get<std::string>() : "";
            const char* cls = line.find(" DIFFERENT (worse)") != std::string::npos ? "worse"
                              : line.find(" DIFFERENT") != std::string::npos     ? "changed"
                              : line.find(" SAME") != std::string::npos          ? "same"
                                                                                 : "unjudged";
            html << "<li class=\"" << cls << "\">" << esc(line) << "</li>\n";
        }
        html << "</ul></div>\n";
    }

    void problem_list() {
        auto list = problems(page);
        if (list.empty()) {
            html << "<div class=\"box okbox\">No problems: every file is complete, no kernel "
                    "warnings, no warning or error records.</div>\n";
            return;
        }
        size_t errors = 0;
        for (const auto& p : list)
            errors += p.severity == "error";
        html << "<div class=\"box " << (errors ? "errbox" : "warnbox") << "\" id=\"problems\"><b>"
             << errors << " error" << (errors == 1 ? "" : "s") << ", " << list.size() - errors
             << " warning" << (list.size() - errors == 1 ? "" : "s") << "</b><ul>\n";
        for (const auto& p : list)
            html << "<li class=\"" << p.severity << "\"><span class=\"tag\">" << p.severity << "</span> "
                 << (p.where.empty() ? "" : "<code>" + esc(p.where) + "</code>: ") << esc(p.text) << "</li>\n";
        html << "</ul></div>\n";
    }

    std::string change_cell(const json& change) {
        if (!change.is_object())
            return "<td></td>";
        const std::string verdict = str(change, "verdict"), direction = str(change, "direction");
        const json& pct = at(change, "pct");
        std::string text = pct.is_number() ? format_number(pct.get<double>(), "%+.2f %%") : "n/a";
        const json& significant = at(change, "significant");
        // The colour says the direction of a difference; the word is compare's verdict.
        std::string cls = "same", word = verdict;
        if (significant.is_null() || direction == "unqualified") {
            cls = "unjudged";
            word = "no verdict";
        } else if (verdict == "different") {
            cls = direction == "better" || direction == "worse" ? direction : "changed";
        } else if (verdict == "unknown") {
            cls = "unjudged";
        }
        std::string title = str(change, "note");
        if (at(change, "p").is_number())
            title += (title.empty() ? "" : "; ") + std::string("p = ") + format_number(at(change, "p").get<double>(), "%.3g");
        return "<td class=\"chg " + cls + "\" title=\"" + esc(title) + "\">" + text + " <span>" + esc(word) +
               "</span></td>";
    }

    void metric_table(const std::vector<const json*>& rows, bool with_group) {
        html << "<table class=\"metrics\"><thead><tr>" << (with_group ? "<th>group</th>" : "")
             << "<th>metric</th><th>unit</th>";
        for (size_t i = 0; i < page.stat_sides.size(); i++) {
            html << "<th><span class=\"swatch\" style=\"background:" << colour(colour_index(i)) << "\"></span>"
                 << esc(side_label(i)) << "</th>";
            if (i && comparing())
                html << "<th>change</th>";
        }
        html << "</tr></thead><tbody>\n";
        for (const json* m : rows) {
            html << "<tr>" << (with_group ? "<td>" + esc(str(*m, "group")) + "</td>" : "") << "<td title=\""
                 << esc(str(*m, "id")) << "\">" << esc(str(*m, "agg")) << " " << esc(str(*m, "name"))
                 << (str(*m, "better") == "higher"  ? " <small>↑ better</small>"
                     : str(*m, "better") == "lower" ? " <small>↓ better</small>"
                                                    : "")
                 << "</td><td class=\"unit\">" << esc(str(*m, "unit")) << "</td>";
            const json& sides = at(*m, "sides");
            for (size_t i = 0; i < page.stat_sides.size(); i++) {
                const json& s = i < sides.size() ? sides[i] : json();
                if (at(s, "mean").is_number()) {
                    double mean = s["mean"].get<double>(), sd = at(s, "stddev").is_number() ? s["stddev"].get<double>() : 0;
                    std::string cov = at(s, "cov").is_number() ? format_number(100 * s["cov"].get<double>(), "%.1f %%") : "–";
                    html << "<td class=\"val\" title=\"min " << num(at(s, "min").get<double>()) << ", max "
                         << num(at(s, "max").get<double>()) << "\"><b>" << num(mean) << "</b> <small>± "
                         << num(sd) << " (CoV " << cov << ", n " << str(s, "n") << ")</small></td>";
                } else {
                    html << "<td class=\"val missing\">" << esc(str(s, "error").empty() ? "–" : str(s, "error"))
                         << "</td>";
                }
                if (i && comparing())
                    html << change_cell(at(s, "change"));
            }
            html << "</tr>\n";
        }
        html << "</tbody></table>\n";
    }

    std::vector<const json*> phase_metrics() const {
        std::vector<const json*> rows;
        for (const auto& m : at(page.stats, "metrics"))
            if (str(m, "group").find('/') == std::string::npos)
                rows.push_back(&m);
        return rows;
    }

    void summary() {
        html << "<h2 id=\"summary\">Phases at a glance</h2>\n";
        if (!page.stats.is_object()) {
            html << "<p class=\"bad\">No numbers: no side has a usable results file.</p>\n";
            return;
        }
        auto rows = phase_metrics();
        if (rows.empty())
            html << "<p>No phase metrics (a command or module run: see the counters).</p>\n";
        else
            metric_table(rows, true);
        html << "<p class=\"note\">Mean by the metric's aggregation ± sample standard deviation, its "
                "coefficient of variation and the number of samples; the change against the base "
                "and compare's verdict (hover for the p-value).</p>\n";
    }

    void identity() {
        html << "<h2 id=\"identity\">Identity</h2>\n<div class=\"scroll\"><table class=\"identity\">\n";
        struct Column {
            size_t side;
            const RunDoc* f;
        };
        std::vector<Column> cols;
        for (size_t s = 0; s < page.sides.size(); s++)
            for (const auto& f : page.sides[s].files)
                cols.push_back({s, &f});
        using Getter = std::string (*)(const RunDoc&);
        const std::pair<const char*, Getter> fields[] = {
            {"status", [](const RunDoc& f) {
                 if (!f.run)
                     return "REFUSED: " + f.refused;
                 return str(f.doc, "verdict") + " (log " + str(at(f.doc, "log"), "status") + ")";
             }},
            {"run id", [](const RunDoc& f) { return str(header_of(f), "run_id"); }},
            {"kernel release", [](const RunDoc& f) { return str(at(header_of(f), "kernel"), "release"); }},
            {"kernel version", [](const RunDoc& f) { return str(at(header_of(f), "kernel"), "version"); }},
            {"build id", [](const RunDoc& f) { return str(at(header_of(f), "kernel"), "build_id"); }},
            {"kernel SHA-256", [](const RunDoc& f) { return str(at(at(f.doc, "host"), "kernel"), "sha256"); }},
            {"image SHA-256", [](const RunDoc& f) { return str(at(at(f.doc, "host"), "image"), "sha256"); }},
            {"boot", [](const RunDoc& f) {
                 const json& b = at(at(f.doc, "host"), "boot");
                 std::string out = str(b, "protocol");
                 if (!str(b, "vmlinux_build_id").empty())
                     out += ", vmlinux build id " + str(b, "vmlinux_build_id");
                 return out;
             }},
            {"command line", [](const RunDoc& f) { return str(at(header_of(f), "kernel"), "cmdline"); }},
            {"accelerator", [](const RunDoc& f) {
                 const json& h = at(f.doc, "host");
                 return str(h, "accel") + (str(h, "accel_note").empty() ? "" : " (" + str(h, "accel_note") + ")");
             }},
            {"clock", [](const RunDoc& f) { return str(at(f.doc, "host"), "clock"); }},
            {"CPUs, memory", [](const RunDoc& f) {
                 const json& h = at(f.doc, "host");
                 return h.is_object() && h.contains("cpus") ? str(h, "cpus") + " CPU, " + str(h, "memory_mb") + " MiB"
                                                           : std::string();
             }},
            {"CPU model", [](const RunDoc& f) { return str(at(header_of(f), "kernel"), "cpu_model"); }},
            {"experiment", [](const RunDoc& f) { return experiment_text(at(header_of(f), "config")); }},
            {"host kernel", [](const RunDoc& f) { return str(at(f.doc, "host"), "host_kernel"); }},
        };
        html << "<tr><th></th>";
        for (const auto& c : cols)
            html << "<th><span class=\"swatch\" style=\"background:" << colour(c.side) << "\"></span>"
                 << esc(page.sides[c.side].label) << "<br><small title=\"" << esc(c.f->path) << "\">"
                 << esc(std::filesystem::path(c.f->path).filename().string()) << "</small></th>";
        html << "</tr>\n";
        for (const auto& [name, get] : fields) {
            std::vector<std::string> values;
            for (const auto& c : cols)
                values.push_back(get(*c.f));
            if (std::all_of(values.begin(), values.end(), [](const std::string& v) { return v.empty(); }))
                continue;
            const bool hash = std::string(name).find("SHA") != std::string::npos;
            html << "<tr><th>" << name << "</th>";
            for (size_t i = 0; i < cols.size(); i++) {
                std::string cls = values[i] != values[0] ? " class=\"differs\"" : "";
                if (std::string(name) == "status")
                    cls = cols[i].f->run ? "" : " class=\"refused\"";
                html << "<td" << cls << (hash ? " title=\"" + esc(values[i]) + "\"" : "") << ">"
                     << esc(hash ? short_hash(values[i]) : values[i]) << "</td>";
            }
            html << "</tr>\n";
        }
        html << "<tr><th>QEMU</th>";
        for (const auto& c : cols) {
            std::string argv;
            for (const auto& a : at(at(c.f->doc, "host"), "qemu_argv"))
                argv += (argv.empty() ? "" : " ") + (a.is_string() ? a.get<std::string>() : a.dump());
            html << "<td>" << (argv.empty() ? "" : "<details><summary>argv</summary><code>" + esc(argv) + "</code></details>")
                 << "</td>";
        }
        html << "</tr>\n</table></div>\n<p class=\"note\">Highlighted: differs from the first column.</p>\n";
    }

    std::string series_plot(const TimeSeries& ts) {
        plots::Plot p;
        p.kind = plots::Plot::Kind::line;
        p.line.xlabel = "seconds of measurement (rounds one after another)";
        p.line.ylabel = ts.metric;
        for (const auto& m : at(page.stats, "metrics")) // the unit, where the metric has one
            if (str(m, "id") == ts.group + "/" + ts.metric && !str(m, "unit").empty())
                p.line.ylabel += ", " + str(m, "unit");
        for (size_t s = 0; s < ts.runs_per_side.size(); s++)
            for (size_t r = 0; r < ts.runs_per_side[s].size(); r++) {
                std::string title = r ? "" : page.sides[s].label;
                if (!r && ts.runs_per_side[s].size() > 1)
                    title += " (" + std::to_string(ts.runs_per_side[s].size()) + " runs)";
                p.line.lines.push_back({title, colour(s), ts.runs_per_side[s][r]});
            }
        return plot(std::move(p));
    }

    std::string histogram_plot(const json& h, std::string& verdicts) {
        const json& counts = at(h, "counts");
        const json& buckets = at(h, "buckets");
        const std::string unit = str(h, "unit");
        // Trimmed to the occupied buckets, as compare prints them.
        size_t lo = buckets.size(), hi = 0;
        for (const auto& c : counts)
            for (size_t b = 0; b < c.size(); b++)
                if (c[b].is_number() && c[b].get<double>() > 0) {
                    lo = std::min(lo, b);
                    hi = std::max(hi, b);
                }
        plots::Plot p;
        p.kind = plots::Plot::Kind::bars;
        p.bars.ylabel = "share of events, %";
        const bool linear = std::any_of(buckets.begin(), buckets.end(), [](const json& l) {
            return l.is_string() && l.get<std::string>().starts_with("[");
        });
        p.bars.xlabel = linear ? "bucket, " + unit : "bucket (from this value to the next)";
        if (lo <= hi)
            for (size_t b = lo; b <= hi; b++)
                p.bars.categories.push_back(bucket_label(buckets[b].get<std::string>(), unit));
        for (size_t i = 0; i < counts.size() && i < page.stat_sides.size(); i++) {
            double total = 0;
            for (const auto& c : counts[i])
                total += c.get<double>();
            plots::BarGroup g{side_label(i) + " (" + num(total) + " events)", colour(colour_index(i)), {}};
            if (lo <= hi)
                for (size_t b = lo; b <= hi; b++)
                    g.values.push_back(total > 0 && b < counts[i].size() ? 100 * counts[i][b].get<double>() / total : 0);
            p.bars.groups.push_back(std::move(g));
        }
        const json& changes = at(h, "changes");
        for (size_t i = 0; i < changes.size() && comparing(); i++) {
            const json& c = changes[i];
            std::string who = side_label(i + 1) + " vs " + side_label(0) + ": ";
            if (at(c, "p").is_number()) {
                const json& sig = at(c, "significant");
                std::string word = sig.is_null() ? "no verdict" : sig.get<bool>() ? "distributions differ" : "no significant difference";
                std::string cls = sig.is_null() ? "unjudged" : sig.get<bool>() ? "changed" : "same";
                if (!str(c, "note").empty())
                    word = "no verdict: " + str(c, "note");
                verdicts += "<div class=\"hv " + cls + "\">" + esc(who) + "KS D " +
                            format_number(c["ks_d"].get<double>(), "%.3f") + ", boots permuted: p " +
                            format_number(c["p"].get<double>(), "%.3g") + ": <b>" + esc(word) + "</b></div>";
            } else {
                verdicts += "<div class=\"hv unjudged\">" + esc(who + str(c, "note")) + "</div>";
            }
        }
        return plot(std::move(p));
    }

    void phases() {
        html << "<h2 id=\"phases\">Phases</h2>\n";
        auto series = time_series(page);
        std::vector<std::string> groups;
        auto add_group = [&](const std::string& g) {
            if (std::find(groups.begin(), groups.end(), g) == groups.end())
                groups.push_back(g);
        };
        for (const json* m : phase_metrics())
            add_group(str(*m, "group"));
        for (const auto& ts : series)
            add_group(ts.group);
        for (const auto& h : at(page.stats, "histograms")) // a phase with probes but no rate
            if (auto slash = str(h, "id").find('/'); slash != std::string::npos)
                add_group(str(h, "id").substr(0, slash));
        std::set<std::string> shown_hist;
        auto hist_in = [&](const std::string& group) {
            std::vector<const json*> out;
            for (const auto& h : at(page.stats, "histograms")) {
                std::string id = str(h, "id");
                if (id.rfind(group + "/", 0) == 0 && shown_hist.insert(id).second)
                    out.push_back(&h);
            }
            return out;
        };
        auto figure = [&](const std::string& kind, const std::string& id, const std::string& title,
                          const std::string& svg, const std::string& below) {
            html << "<figure class=\"plot\" data-plot=\"" << kind << "\" data-id=\"" << esc(id) << "\"><figcaption>"
                 << esc(title) << "</figcaption>" << svg << below << "</figure>\n";
        };
        for (const auto& g : groups) {
            html << "<section class=\"phase\"><h3>" << esc(g) << "</h3>\n<div class=\"grid\">\n";
            for (const auto& ts : series)
                if (ts.group == g)
                    figure("timeseries", g + "/" + ts.metric, ts.metric + " over time (per-interval samples)",
                           series_plot(ts), "");
            for (const json* h : hist_in(g)) {
                std::string verdicts;
                std::string svg = histogram_plot(*h, verdicts);
                figure("histogram", str(*h, "id"), str(*h, "id").substr(g.size() + 1) + " [" + str(*h, "unit") + "]",
                       svg, verdicts);
            }
            html << "</div></section>\n";
        }
        // Histograms outside any phase (a command's or a record of its own).
        std::vector<const json*> rest;
        for (const auto& h : at(page.stats, "histograms"))
            if (!shown_hist.count(str(h, "id")))
                rest.push_back(&h);
        if (!rest.empty()) {
            html << "<section class=\"phase\"><h3>Other distributions</h3><div class=\"grid\">\n";
            for (const json* h : rest) {
                std::string verdicts;
                std::string svg = histogram_plot(*h, verdicts);
                figure("histogram", str(*h, "id"), str(*h, "id") + " [" + str(*h, "unit") + "]", svg, verdicts);
            }
            html << "</div></section>\n";
        }
    }

    void counters() {
        auto rows = counter_rows(page);
        html << "<h2 id=\"counters\">Counters</h2>\n";
        if (rows.empty()) {
            html << "<p>No perf counters in these runs (<code>initbench.perf=default</code> adds perf stat's "
                    "set to every phase).</p>\n";
            return;
        }
        html << "<table class=\"counters\"><thead><tr><th>where</th><th>event</th>";
        for (size_t s = 0; s < page.sides.size(); s++)
            html << "<th><span class=\"swatch\" style=\"background:" << colour(s) << "\"></span>"
                 << esc(page.sides[s].label) << "</th>";
        html << "</tr></thead><tbody>\n";
        for (const auto& row : rows) {
            html << "<tr><td>" << esc(row.group) << "</td><td>" << esc(row.event) << "</td>";
            for (const auto& c : row.sides) {
                if (!c.present) {
                    html << "<td class=\"missing\">–</td>";
                } else if (!c.value) {
                    html << "<td class=\"unsupported\">" << esc(c.why_not) << "</td>";
                } else {
                    std::string v = c.unit == "ns" ? num(*c.value / 1e6) + " ms" : num(*c.value);
                    html << "<td class=\"val\"><b>" << v << "</b>";
                    if (c.rel_stderr_pct)
                        html << " <small>( ± " << format_number(*c.rel_stderr_pct, "%.2f") << " %)</small>";
                    if (c.derived)
                        html << "<br><small>" << num(*c.derived) << " " << esc(c.derived_unit) << "</small>";
                    html << "</td>";
                }
            }
            html << "</tr>\n";
        }
        html << "</tbody></table>\n<p class=\"note\">The mean over the records (rounds and runs) of each "
                "count and of perf stat's derived metric; a command's or module's record gives its own mean "
                "over its repeats and perf's ( ± relative standard error). Unsupported counters show the "
                "kernel's reason; none is ever shown as 0.</p>\n";
    }

    void all_metrics() {
        std::vector<const json*> rows;
        for (const auto& m : at(page.stats, "metrics"))
            if (str(m, "group").find('/') != std::string::npos)
                rows.push_back(&m);
        if (rows.empty())
            return;
        html << "<h2 id=\"metrics\">Probe metrics</h2>\n<details><summary>" << rows.size()
             << " metrics from probe records, as compare lists them</summary>\n";
        metric_table(rows, true);
        html << "</details>\n";
    }

    static constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#222;max-width:1280px;margin:0 auto;padding:16px 24px;background:#fff}
h1{font-size:22px;margin:4px 0}h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:3px;margin-top:28px}
h3{font-size:15px;margin:18px 0 6px}
.lead{font-size:15px;margin:4px 0}.method,.note{color:#666;font-size:12.5px;margin:4px 0}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.box{border-radius:6px;padding:8px 14px;margin:12px 0}.box ul{margin:6px 0;padding-left:20px}
.okbox{background:#eef8f0;border:1px solid #9fd3ad}.warnbox{background:#fff8e5;border:1px solid #e8c66a}
.errbox{background:#fdeeee;border:1px solid #e39a9a}
.tag{font-size:11px;text-transform:uppercase;font-weight:600;padding:0 4px;border-radius:3px}
li.error .tag{background:#c0392b;color:#fff}li.warning .tag{background:#e0a800;color:#222}
table{border-collapse:collapse;margin:6px 0}th,td{padding:4px 9px;border-bottom:1px solid #e6e6e6;text-align:left;vertical-align:top}
thead th{background:#f5f6f8;font-weight:600}tbody tr:nth-child(even){background:#fafafa}
td.val{text-align:right;white-space:nowrap}td.unit{color:#666;font-size:12px}small{color:#666}
td.chg{white-space:nowrap;font-weight:600;text-align:right}td.chg span{font-weight:400;font-size:12px}
.better{color:#1b7a3a}.worse{color:#b3261e}.changed{color:#a35b00}.same{color:#555}.unjudged{color:#888;font-style:italic}
.missing{color:#999}.unsupported{color:#8a6d00;font-size:12px}.bad,.refused{color:#b3261e;font-weight:600}
table.identity td{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;word-break:break-all;min-width:160px;max-width:420px}
table.identity td.differs{background:#fff3c4}.scroll{overflow-x:auto}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:14px}
figure.plot{margin:0;border:1px solid #e4e4e4;border-radius:6px;padding:6px 8px}
figure.plot figcaption{font-weight:600;font-size:13px}figure.plot svg{width:100%;height:auto;display:block}
.hv{font-size:12.5px}.hv b{font-weight:600}
code{font-size:12px}details summary{cursor:pointer;color:#1f6fb4}
footer{color:#888;font-size:12px;margin-top:30px;border-top:1px solid #eee;padding-top:6px}
)";
};

} // namespace

HtmlResult render_html(const Page& page) {
    Builder b{page, {}, {}};
    b.head();
    b.problem_list();
    b.summary();
    b.identity();
    if (page.stats.is_object()) {
        b.phases();
        b.counters();
        b.all_metrics();
    }
    b.html << "<footer>Written by <code>initbench report</code>; statistics by <code>initbench compare</code>, "
              "plots by gnuplot. Every number comes from the results files above; refused files give none."
              "</footer>\n</body></html>\n";
    HtmlResult out;
    std::string html = b.html.str();
    auto svgs = plots::render_svgs(b.plot_list, "ibp");
    if (!svgs)
        out.plot_error = svgs.error().message();
    for (size_t i = 0; i < b.plot_list.size(); i++) {
        const std::string mark = "@@PLOT" + std::to_string(i) + "@@";
        auto pos = html.find(mark);
        std::string with = svgs ? svgs.value()[i] : "<p class=\"unjudged\">no plot: " + esc(out.plot_error) + "</p>";
        html.replace(pos, mark.size(), with);
    }
    out.html = std::move(html);
    return out;
}

} // namespace initbench::report
