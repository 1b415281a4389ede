// What compare's renderers share (host/compare/compare_render.cpp), and each format's renderer.
#pragma once

#include "common/text.h"
#include "host/compare/compare.h"

#include <string>
#include <utility>
#include <vector>

namespace initbench::compare_render {

// A statistic's value: 2 decimals, or 3 significant digits below 0.01.
std::string value_text(double x);
// How a metric's values are shown to people: a time in ns at the scale of the largest of its
// means (2783826.8 ns -> "2.78 ms", each value with its unit); other units as value_text.
struct ValueFormat {
    double divisor = 1;
    std::string unit;         // the unit the values are shown in: "ms", or the metric's own
    bool with_unit = false;   // each value carries its unit
    std::string operator()(double x) const {
        return value_text(x / divisor) + (with_unit ? " " + unit : "");
    }
};
ValueFormat value_format(const MetricRow& m);
// A metric that is 0 in every sample of every side (funclat's `missed` on a good run): the
// text and Markdown tables list it once below instead of as a row of zeros and "n/a".
bool zero_everywhere(const MetricRow& m);
// "icount (-icount shift=4,align=off,sleep=off: guest time counts instructions, 16 ns each)",
// or the clock's name.
std::string clock_sentence(const std::string& clock, const std::string& detail);
// --method's names; the first is the default.
inline constexpr Named<Method> kMethodNames[] = {
    {Method::auto_, "auto"}, {Method::welch, "welch"}, {Method::permutation, "permutation"},
    {Method::lkp, "lkp"},    {Method::threshold, "threshold"}, {Method::paired, "paired"}};
std::string method_name(Method m);
std::string kind_name(ChangeKind k);

// The interval of a change in words ("[-30.41 %, -29.00 %]"), "" when it has none.
std::string interval_text(const Change& c);

// What every output opens with: each judged change, DIFFERENT first, then UNKNOWN (with what
// would decide it), then SAME, in words with its interval and the boots a side; or why no
// change is judged.
// judged: the metrics' globs to keep (others dropped), or with `others` the ones to drop.
std::vector<std::string> verdict_lines(const Report& report, const std::vector<std::string>& judged = {},
                                       bool others = false);
std::string verdict_name(Decision v); // "same", "different", "unknown"
// The one-line legend of the verdict marks, with this comparison's effect and level.
std::string verdict_legend(const CompareOptions& o);
// Why a change is UNKNOWN and what would decide it: "n = 2 a side detects changes of >= 12.3 %
// (80 % power); about 9 a side would likely decide; <the method's reason>".
std::string undecided_text(const Change& c, size_t n_base, size_t n_next);
// Every UNKNOWN change that was judged, as "metric id, side label: undecided_text".
std::vector<std::string> undecided_lines(const Report& report);
std::string better_name(Better b);
// "Welch's t-test at 95 % and a change of at least 5 %".
std::string method_sentence(const Report& report);
std::string unit_sentence(SampleUnit unit);
// The chi-square and KS figures of a histogram's change and what they say.
std::string histogram_verdict(const HistChange& c);
// Buckets from the first to the last that holds anything on any side.
std::pair<size_t, size_t> occupied(const HistRow& h);
double total(const std::vector<double>& v);

std::string render_text(const Report& report, const RenderOptions& options); // text and terminal
std::string render_markdown(const Report& report);
std::string render_csv(const Report& report);

} // namespace initbench::compare_render
