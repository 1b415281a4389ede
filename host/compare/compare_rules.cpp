// `--fail-on METRIC:+N%`: the rules that give CI an exit code.
#include "host/compare/compare.h"

#include "common/text.h"

#include <cmath>
#include <fnmatch.h>

#include <optional>
#include <set>

namespace initbench {

Result<FailRule> parse_fail_rule(std::string_view text) {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
        return Error{"--fail-on '" + std::string(text) +
                     "': expected METRIC:+N%, METRIC:-N% or METRIC:N%"};
    FailRule rule;
    rule.text = std::string(text);
    rule.pattern = std::string(text.substr(0, colon));
    auto amount = parse_signed_amount(text.substr(colon + 1));
    if (!amount || amount->sign == '<' || amount->sign == '>' || amount->value < 0)
        return Error{"--fail-on '" + rule.text + "': the change must be a percentage like +5%"};
    rule.pct = amount->value;
    rule.sign = amount->sign == '+' ? 1 : amount->sign == '-' ? -1 : 0;
    return rule;
}

// On the id, '*' stops at '/' (FNM_PATHNAME): "fork/*" is the fork phase's own metrics, as
// users mean it, and "fork/*/*" its probes' too. A bare name matches in any group.
bool metric_matches(const std::string& pattern, const std::string& id, const std::string& name) {
    return ::fnmatch(pattern.c_str(), id.c_str(), FNM_PATHNAME) == 0 ||
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
            for (size_t i = 0; i < m.sides.size(); i++)
                if (!m.sides[i].summary)
                    out.missing.push_back(rule.text + ": " + m.id + " is missing on " +
                                          report.sides[i].label +
                                          (m.sides[i].error.empty() ? "" : " (" + m.sides[i].error + ")"));
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
                out.fired.push_back(
                    rule.text + ": " + m.id + " " + format_number(*c.pct, "%+.2f%%") + " (" +
                    report.sides[i + 1].label + " vs " + report.sides[0].label + ")" +
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

namespace {

// A later side whose every run is also on the base side (the same run ids): whatever the
// verdict, it compares the base with itself.
std::optional<std::string> base_again(const Side& base, const Side& side) {
    std::set<std::string> ids;
    for (const auto& run : base.runs)
        ids.insert(run.run_id);
    for (const auto& run : side.runs)
        if (run.run_id.empty() || !ids.contains(run.run_id))
            return std::nullopt;
    if (side.runs.empty())
        return std::nullopt;
    return side.label + ": every run is also " + base.label +
           "'s (the same run ids): a comparison of nothing, which no rule can pass";
}

} // namespace

std::vector<std::string> failed_runs(const std::vector<Side>& sides) {
    std::vector<std::string> lines;
    for (const auto& side : sides)
        for (const auto& run : side.runs) {
            const std::string where = side.label + ": " + run.path + ": ";
            if (!run.failure.empty())
                lines.push_back(where + run.failure);
            for (const auto& e : run.errors)
                lines.push_back(where + "error record: " + e);
        }
    for (size_t i = 1; i < sides.size(); i++)
        if (auto again = base_again(sides[0], sides[i]))
            lines.push_back(again.value());
    return lines;
}

} // namespace initbench
