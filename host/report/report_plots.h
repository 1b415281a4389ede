// The plots of `initbench report`, drawn by gnuplot (Debian's gnuplot-nox): one gnuplot
// process runs a generated script, its SVG terminal writes one file per plot, and each SVG
// comes back as text ready to be inlined into the page.
#pragma once

#include "common/result.h"

#include <string>
#include <utility>
#include <vector>

namespace initbench::plots {

// A line per series; a series may be broken into segments (rounds) that are not joined.
struct Line {
    std::string title; // "" keeps it out of the key
    std::string colour; // "#1f77b4"
    std::vector<std::vector<std::pair<double, double>>> segments;
};

struct LinePlot {
    std::string xlabel, ylabel;
    std::vector<Line> lines;
};

// Clustered bars: one bar per group (side) in each category (bucket).
struct BarGroup {
    std::string title, colour;
    std::vector<double> values; // one per category
};

struct BarPlot {
    std::string xlabel, ylabel;
    std::vector<std::string> categories;
    std::vector<BarGroup> groups;
};

struct Plot {
    enum class Kind { line, bars } kind = Kind::line;
    LinePlot line;
    BarPlot bars;
    int width = 620, height = 300;
};

// The gnuplot script that draws `plots` into dir/p0.svg, dir/p1.svg, ... (for tests too).
std::string gnuplot_script(const std::vector<Plot>& plots, const std::string& dir);

// Runs `gnuplot` and returns one inline-ready <svg> element per plot, their ids made unique
// by `id_prefix` + the plot's index. An Error says why (no gnuplot, a failed script).
Result<std::vector<std::string>> render_svgs(const std::vector<Plot>& plots, const std::string& id_prefix);

} // namespace initbench::plots
