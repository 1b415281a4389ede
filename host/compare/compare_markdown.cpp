// compare's Markdown output: a table per report, for a review or a mailing list.
#include "host/compare/compare_render.h"

#include "common/json_fields.h"
#include "common/text.h"

#include <sstream>

namespace initbench::compare_render {
namespace {

std::string md_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|' || c == '*' || c == '_' || c == '[' || c == ']' || c == '<')
            out += '\\';
        out += c;
    }
    return out;
}

// The sides, warnings, the verdicts' legend and the table's head.
void md_head(std::ostringstream& out, const Report& report) {
    if (const auto verdicts = verdict_lines(report); !verdicts.empty() && report.no_verdict.empty()) {
        out << "**Verdicts**\n\n";
        for (const auto& line : verdicts)
            out << "- " << md_escape(line) << "\n";
        out << "\n";
    }
    out << "**initbench compare** — " << md_escape(method_sentence(report)) << "; clock "
        << md_escape(clock_sentence(report.clock, report.clock_detail)) << "; " << unit_sentence(report.unit) << "\n\n";
    for (const auto& s : report.sides)
        out << "- **" << md_escape(s.label) << "**: " << s.files.size() << " run(s), kernel "
            << md_escape(s.kernel_release) << " build-id `" << s.build_id.substr(0, 12) << "`\n";
    for (const auto& w : report.warnings)
        out << "- warning: " << md_escape(w) << "\n";
    if (!report.no_verdict.empty())
        out << "- **no verdict**: " << md_escape(report.no_verdict)
            << ". Changes are shown as \\~…\\~, not judged.\n";
    else if (report.sides.size() > 1)
        out << "- verdicts: **x%** different: significant and >= "
            << format_number(report.options.min_effect_pct, "%g") << " %; same: within ±"
            << format_number(report.options.min_effect_pct, "%g")
            << " % by two one-sided tests; unknown: neither (see below)\n";
    out << "\n| metric | unit | stat |";
    for (size_t i = 0; i < report.sides.size(); i++)
        out << " " << md_escape(report.sides[i].label) << " |" << (i ? " change |" : "");
    out << "\n|---|---|---|";
    for (size_t i = 0; i < report.sides.size(); i++)
        out << "---:|" << (i ? "---:|" : "");
    out << "\n";
}

// A metric's row: each side's mean ± stddev and, from the second side on, its change.
void md_metric_row(std::ostringstream& out, const MetricRow& m) {
    ValueFormat fmt = value_format(m);
    fmt.with_unit = false; // the unit column says it
    out << "| " << md_escape(m.id) << " | " << md_escape(fmt.unit) << " | "
        << agg_label(m.agg) << " |";
    for (size_t i = 0; i < m.sides.size(); i++) {
        const auto& s = m.sides[i].summary;
        out << " " << (s ? fmt(s->mean) + " ± " + fmt(s->stddev) : "-") << " |";
        if (i) {
            const Change& c = m.changes[i - 1];
            std::string pct = c.pct ? format_number(*c.pct, "%+.2f%%") : "n/a";
            if (c.kind == ChangeKind::unqualified) // escaped: ~x~ is strikethrough in GFM
                pct = "\\~" + pct + "\\~";
            else if (c.significant)
                pct = "**" + pct + "** different";
            else
                pct += " " + verdict_name(c.verdict);
            out << " " << pct << " |";
        }
    }
    out << "\n";
}

// A histogram's table: each side's count and share per bucket, from the first to the last
// bucket any side occupies.
void md_histogram(std::ostringstream& out, const HistRow& h, const Report& report) {
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
            out << " " << number_label(c) << " | "
                << (all > 0 ? format_number(c / all * 100, "%.1f") : "-") << " |";
        }
        out << "\n";
    }
}

} // namespace

std::string render_markdown(const Report& report) {
    std::ostringstream out;
    md_head(out, report);
    std::string zeros;
    for (const auto& m : report.metrics) {
        if (zero_everywhere(m))
            zeros += (zeros.empty() ? "" : ", ") + ("`" + m.id + "`");
        else
            md_metric_row(out, m);
    }
    if (!zeros.empty())
        out << "\n0 in every sample on every side: " << zeros << "\n";
    const auto undecided = undecided_lines(report);
    for (size_t i = 0; i < undecided.size(); i++)
        out << (i ? "" : "\nUndecided:\n\n") << "- " << md_escape(undecided[i]) << "\n";
    for (const auto& h : report.histograms)
        md_histogram(out, h, report);
    return out.str();
}

} // namespace initbench::compare_render
