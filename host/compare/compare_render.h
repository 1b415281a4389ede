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
// --method's names; the first is the default.
inline constexpr Named<Method> kMethodNames[] = {
    {Method::welch, "welch"}, {Method::lkp, "lkp"}, {Method::threshold, "threshold"}};
std::string method_name(Method m);
std::string kind_name(ChangeKind k);
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
std::string method_sentence(const CompareOptions& o);
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
