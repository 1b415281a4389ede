#include "host/compare/compare_render.h"

#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace initbench {
namespace compare_render {

std::string value_text(double x) {
    if (x == 0 || std::fabs(x) >= 0.01)
        return format_number(x, "%.2f");
    return format_number(x, "%.3g");
}

ValueFormat value_format(const MetricRow& m) {
    ValueFormat f;
    f.unit = m.unit;
    if (m.unit != "ns")
        return f;
    double largest = 0;
    for (const auto& s : m.sides)
        if (s.summary)
            largest = std::max(largest, std::fabs(s.summary->mean));
    static const std::pair<double, const char*> kScales[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    for (const auto& [divisor, unit] : kScales)
        if (largest >= divisor || divisor == 1) {
            f.divisor = divisor;
            f.unit = unit;
            break;
        }
    f.with_unit = true;
    return f;
}

bool zero_everywhere(const MetricRow& m) {
    bool any = false;
    for (const auto& s : m.sides) {
        if (!s.summary)
            continue;
        if (s.summary->min != 0 || s.summary->max != 0)
            return false;
        any = true;
    }
    return any;
}

std::string clock_sentence(const std::string& clock, const std::string& detail) {
    if (detail.empty())
        return clock;
    // -icount shift=N: every instruction advances the guest's clocks by 2^N ns.
    std::string out = clock + " (-icount " + detail;
    const size_t at = detail.find("shift=");
    if (at != std::string::npos && std::isdigit(static_cast<unsigned char>(detail[at + 6])))
        out += ": guest time counts instructions, " +
               std::to_string(1L << std::min(std::stoi(detail.substr(at + 6)), 30)) + " ns each";
    return out + ")";
}

std::string method_name(Method m) {
    return std::string(name_of(kMethodNames, m));
}

std::string kind_name(ChangeKind k) {
    static constexpr Named<ChangeKind> kKindNames[] = {
        {ChangeKind::none, "none"},       {ChangeKind::better, "better"},
        {ChangeKind::worse, "worse"},     {ChangeKind::changed, "changed"},
        {ChangeKind::not_tested, "not-tested"}, {ChangeKind::unqualified, "unqualified"}};
    return std::string(name_of(kKindNames, k));
}

std::string verdict_name(Decision v) {
    return v == Decision::same ? "same" : v == Decision::different ? "different" : "unknown";
}

std::string verdict_legend(const CompareOptions& o) {
    const std::string effect = format_number(o.min_effect_pct, "%g") + " %";
    return "*x%* DIFFERENT (significant and >= " + effect + "), =x%= SAME (within +-" + effect +
           " by two one-sided tests at " + format_number(o.confidence * 100, "%g") +
           " %), ?x%? UNKNOWN (neither: see 'undecided')";
}

std::string undecided_text(const Change& c, size_t n_base, size_t n_next) {
    std::string out;
    if (c.detectable_pct) {
        out = "n = " + (n_base == n_next ? std::to_string(n_base) + " a side"
                                          : std::to_string(n_base) + " and " + std::to_string(n_next)) +
              " detects changes of >= " + format_number(*c.detectable_pct, "%.3g") + " % (" +
              format_number(stats::kPower * 100, "%g") + " % power)";
        out += c.samples_needed ? "; about " + std::to_string(*c.samples_needed) +
                                      " a side would likely decide"
                                : "; more than 1000 a side would be needed";
    }
    if (!c.note.empty())
        out += (out.empty() ? "" : "; ") + c.note;
    return out;
}

std::string interval_text(const Change& c) {
    if (!c.ci_lo_pct || !c.ci_hi_pct)
        return "";
    return "[" + format_number(*c.ci_lo_pct, "%+.2f") + " %, " + format_number(*c.ci_hi_pct, "%+.2f") + " %]";
}

std::vector<std::string> verdict_lines(const Report& report, const std::vector<std::string>& judged, bool others) {
    if (report.sides.size() < 2)
        return {};
    if (!report.no_verdict.empty())
        return others ? std::vector<std::string>{} : std::vector<std::string>{"no verdict: " + report.no_verdict};
    auto chosen = [&](const MetricRow& m) {
        if (judged.empty())
            return !others;
        const bool named = std::any_of(judged.begin(), judged.end(),
                                       [&](const std::string& g) { return metric_matches(g, m.id, m.name); });
        return named != others;
    };
    std::vector<std::string> lines[3]; // different, unknown, same
    for (const auto& m : report.metrics)
        for (size_t i = 0; i < m.changes.size() && chosen(m); i++) {
            const Change& c = m.changes[i];
            const auto& base = m.sides[0].summary;
            const auto& next = m.sides[i + 1].summary;
            if (c.kind == ChangeKind::unqualified || c.kind == ChangeKind::not_tested || !base || !next)
                continue;
            std::string line = m.id + ": " + report.sides[i + 1].label + " vs " + report.sides[0].label + " " +
                               (c.pct ? format_number(*c.pct, "%+.2f") + " %" : "?");
            if (const std::string ci = interval_text(c); !ci.empty())
                line += " " + ci;
            const std::string n = base->n == next->n ? std::to_string(base->n) + " a side"
                                                     : std::to_string(base->n) + " and " + std::to_string(next->n);
            switch (c.verdict) {
            case Decision::different:
                line += " DIFFERENT" + (c.kind == ChangeKind::worse || c.kind == ChangeKind::better
                                            ? " (" + kind_name(c.kind) + ")" : std::string()) + ", " + n;
                lines[0].push_back(line);
                break;
            case Decision::unknown:
                line += " UNKNOWN, " + n;
                if (const std::string why = undecided_text(c, base->n, next->n); !why.empty())
                    line += ": " + why;
                lines[1].push_back(line);
                break;
            case Decision::same:
                line += " SAME (within +-" + format_number(report.options.min_effect_pct, "%g") + " %), " + n;
                lines[2].push_back(line);
                break;
            }
        }
    std::vector<std::string> out;
    for (auto& group : lines)
        out.insert(out.end(), group.begin(), group.end());
    return out;
}

std::vector<std::string> undecided_lines(const Report& report) {
    std::vector<std::string> lines;
    for (const auto& m : report.metrics)
        for (size_t i = 0; i < m.changes.size(); i++) {
            const Change& c = m.changes[i];
            if (c.verdict != Decision::unknown || c.kind == ChangeKind::unqualified ||
                !m.sides[0].summary || !m.sides[i + 1].summary)
                continue;
            lines.push_back(m.id + ", " + report.sides[i + 1].label + ": " +
                            undecided_text(c, m.sides[0].summary->n, m.sides[i + 1].summary->n));
        }
    return lines;
}

std::string better_name(Better b) {
    return b == Better::higher ? "higher" : b == Better::lower ? "lower" : "";
}

std::string method_sentence(const Report& report) {
    const CompareOptions& o = report.options;
    std::string effect = "a change of at least " + format_number(o.min_effect_pct, "%g") + " %";
    std::string level = format_number(o.confidence * 100, "%g") + " %";
    if (o.look)
        level += " (look " + std::to_string(o.look->number) + " of " + std::to_string(o.look->looks) + ": " +
                 "alpha spending shares the " + format_number((1 - o.look->confidence) * 100, "%g") +
                 " % error rate of --confidence " + format_number(o.look->confidence, "%g") +
                 " among the looks, so that stopping at the first decision keeps it)";
    switch (o.method) {
    case Method::lkp:
        return "LKP's rule: at least 3 samples a side, ranges that do not overlap, and " + effect;
    case Method::threshold:
        return "threshold only (no test; for a deterministic clock): " + effect;
    case Method::auto_: // resolved by compare_sides before anything is rendered
    case Method::permutation:
        return "the permutation test of the means (exact, or from " + std::to_string(stats::kDraws) +
               " random splits; no assumption of normal noise" +
               (report.strata.empty() ? "" : "; permuted within each host CPU set the boots ran on (" +
                                                   host_cpu_words(report.strata) + ")") + ") at " + level + " and " + effect;
    case Method::paired:
        return "the paired t-test of the log ratios of run i of each side (boots booted one after the "
               "other: a drift of the host's speed between pairs stays out of the spread) at " +
               level + " and " + effect;
    case Method::welch:
        break;
    }
    return "Welch's t-test at " + level + " and " + effect;
}

std::string unit_sentence(SampleUnit unit) {
    return unit == SampleUnit::run ? "one sample per run (the mean of its rounds)"
                                   : "one sample per round";
}

std::string histogram_verdict(const HistChange& c) {
    if (!c.test)
        return c.note;
    const auto& t = *c.test;
    std::string s = "KS D " + format_number(t.ks_d, "%.3f") + ", " + std::to_string(c.runs) + " vs " +
                    std::to_string(c.runs_base) + " boots permuted: p " + format_number(t.p, "%.4f");
    if (!c.note.empty())
        return s + ": no verdict (" + c.note + ")";
    if (c.unqualified)
        return s + ": no verdict (one run a side)";
    return s + (c.significant ? ": distributions differ" : ": no significant difference");
}

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

} // namespace compare_render

std::string render(const Report& report, const RenderOptions& options) {
    switch (options.format) {
    case Format::json:
        return report_json(report).dump(1) + "\n";
    case Format::csv:
        return compare_render::render_csv(report);
    case Format::markdown:
        return compare_render::render_markdown(report);
    case Format::terminal:
    case Format::text:
        break;
    }
    return compare_render::render_text(report, options);
}

} // namespace initbench
