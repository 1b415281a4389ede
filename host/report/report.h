// `initbench report`: the page model. Reads the sides as compare does, keeps every file's
// whole document for its identity and its problems, and takes the statistics from compare
// itself (its JSON model); report_html.h renders the model into one self-contained page.
#pragma once

#include "host/compare/compare.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace initbench::report {

// One results file as given.
struct RunDoc {
    std::string path;
    nlohmann::json doc;          // the whole document; null when it is not JSON
    std::optional<RunFile> run;  // as compare reads it; none when compare refuses the file
    std::string refused;         // compare's reason then: no numbers come from the file
};

struct PageSide {
    std::string label;
    std::vector<RunDoc> files;
};

// The sides of the command line (compare's syntax: files, commas, directories). Files that
// compare refuses are kept as refused; an argument that names no file is an Error.
Result<std::vector<PageSide>> load_sides(const std::vector<std::string>& args,
                                         const std::vector<std::string>& labels);

struct Page {
    std::vector<PageSide> sides;
    // compare's JSON (report_json) over the sides that have usable files, in their order;
    // stat_sides[i] is the index in `sides` of its sides[i].
    nlohmann::json stats;
    std::vector<size_t> stat_sides;
    std::string comparison_refused; // compare's refusal; then each side is summarised alone
};

Page analyse(std::vector<PageSide> sides, const CompareOptions& options);

// A phase's per-interval samples (phase.samples) of one metric on one side: one series per
// run, one segment per round, x in seconds from the first round's start.
using Segment = std::vector<std::pair<double, double>>; // one round's samples
using RunLine = std::vector<Segment>;                     // one run: its rounds in order
struct TimeSeries {
    std::string group, metric;                  // "fork", "ops_per_s"
    std::vector<std::vector<RunLine>> runs_per_side;
};
std::vector<TimeSeries> time_series(const Page& page);

// perf counters per group ("fork/perf", "cmd:busybox ...") and event, per side: the mean
// over the records (rounds and runs), or why there is none.
struct CounterCell {
    bool present = false;
    std::optional<double> value, derived, rel_stderr_pct;
    std::string unit, derived_unit, why_not; // why_not: "not supported: ..." etc.
    size_t records = 0;
};
struct CounterRow {
    std::string group, event;
    std::vector<CounterCell> sides; // per page side
};
std::vector<CounterRow> counter_rows(const Page& page);

// What must be seen first: refused files and comparisons, compare's warnings, kernel
// WARN/oops/OOM records, warning and error records, kernel events the host saw.
struct Problem {
    std::string severity; // "error", "warning"
    std::string where;    // the file, or "" for the comparison
    std::string text;
};
std::vector<Problem> problems(const Page& page);

} // namespace initbench::report
