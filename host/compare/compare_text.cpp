// compare's text and terminal output: mmtests' columns, histograms side by side.
#include "host/compare/compare_render.h"

#include "common/text.h"
#include "common/json_fields.h"
#include "common/text.h"

#include <cmath>
#include <functional>
#include <set>

namespace initbench::compare_render {
namespace {

// mmtests' change column: "(   0.00%)" for the base, then the verdict's marks around the
// change: "* -9.49%*" different, "= -0.12%=" same, "? -3.10%?" unknown, "~ -9.49%~" not judged.
std::string change_text(const Change& c) {
    std::string pct = c.pct ? format_number(*c.pct, "%7.2f%%") : "    n/a";
    if (c.kind == ChangeKind::unqualified)
        return "~" + pct + "~";
    const char* mark = c.verdict == Decision::different ? "*" : c.verdict == Decision::same ? "=" : "?";
    return mark + pct + mark;
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

void text_metrics(const Report& report, const RenderOptions& ro, Table& t) {
    std::vector<Table::Cell> head = {{""}, {""}};
    for (size_t i = 0; i < report.sides.size(); i++) {
        head.push_back({report.sides[i].label});
        head.push_back({""});
    }
    t.row(head);
    std::string group;
    for (const auto& m : report.metrics) {
        if (zero_everywhere(m))
            continue;
        if (m.group != group) {
            group = m.group;
            t.heading("");
            t.heading(group);
        }
        const ValueFormat fmt = value_format(m);
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
        line(std::string(agg_label(m.agg)), [&](size_t i) -> Pair {
            const auto& s = m.sides[i].summary;
            return {Table::Cell{s ? fmt(s->mean) : "-"}, change_cell(i)};
        });
        line("Stddev", stat([&fmt](const stats::Summary& s) { return fmt(s.stddev); }));
        line("CoeffVar", stat([](const stats::Summary& s) {
                 return s.cov ? format_number(*s.cov * 100, "%.2f%%") : std::string("-");
             }));
        if (!ro.details)
            continue;
        line("Min", stat([&fmt](const stats::Summary& s) { return fmt(s.min); }));
        line("Max", stat([&fmt](const stats::Summary& s) { return fmt(s.max); }));
        line("Samples", stat([](const stats::Summary& s) { return std::to_string(s.n); }));
        line("p", [&](size_t i) -> Pair {
            if (i == 0)
                return {Table::Cell{""}, Table::Cell{""}};
            const Change& c = m.changes[i - 1];
            return {Table::Cell{c.p ? format_number(*c.p, "%.4f") : "-"}, Table::Cell{c.note}};
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
                cells.push_back({counts.empty() ? "-" : number_label(c)});
                cells.push_back({all > 0 ? format_number(c / all * 100, "%.1f%%") : "-"});
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
        "initbench compare: " + method_sentence(report) + "\nclock: " +
        clock_sentence(report.clock, report.clock_detail) + "; " +
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
    else if (report.sides.size() > 1)
        out += "legend: " + verdict_legend(report.options) + "\n";
    return out;
}

} // namespace

std::string render_text(const Report& report, const RenderOptions& ro) {
    const bool terminal = ro.format == Format::terminal;
    Table t;
    text_metrics(report, ro, t);
    std::string out;
    // Without verdicts the header's first lines say so (no verdict: why).
    if (const auto verdicts = verdict_lines(report, ro.judged); !verdicts.empty() && report.no_verdict.empty()) {
        out = "verdicts:\n";
        for (const auto& line : verdicts)
            out += "  " + line + "\n";
        if (const auto rest = verdict_lines(report, ro.judged, true); !rest.empty()) {
            out += "not judged (shown for reference):\n";
            for (const auto& line : rest)
                out += "  " + line + "\n";
        }
        out += "\n";
    }
    out += header_text(report) + t.render([](size_t col) { return col < 2; }, terminal);
    // Units once per group, after the table so they do not widen its columns.
    std::string units;
    std::set<std::string> seen;
    for (const auto& m : report.metrics)
        // A time's unit is on each of its values; a metric 0 everywhere is listed below.
        if (auto note = unit_note(value_format(m).with_unit ? "" : m.unit, m.better);
            !zero_everywhere(m) && !note.empty() && seen.insert(m.name + note).second)
            units += "  " + m.name + note + "\n";
    if (!units.empty())
        out += "\nunits:\n" + units;
    std::string zeros;
    for (const auto& m : report.metrics)
        if (zero_everywhere(m))
            zeros += (zeros.empty() ? "" : ", ") + m.id;
    if (!zeros.empty())
        out += "\n0 in every sample on every side: " + zeros + "\n";
    std::string undecided;
    for (const auto& line : undecided_lines(report))
        undecided += "  " + line + "\n";
    if (!undecided.empty())
        out += "\nundecided:\n" + undecided;
    if (!report.histograms.empty())
        out += text_histograms(report, terminal, terminal);
    return out;
}

} // namespace initbench::compare_render
