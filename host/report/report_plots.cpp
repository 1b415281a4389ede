// gnuplot drives every plot of the report: a script with inline data blocks, the SVG
// terminal, one output file per plot.
#include "host/report/report_plots.h"

#include "common/text.h"
#include "host/base/process.h"
#include "sys/sys.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace initbench::plots {
namespace {

namespace fs = std::filesystem;

// A gnuplot single-quoted string: only the quote itself is special ('' is one quote).
std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        out += c;
        if (c == '\'')
            out += '\'';
    }
    return out + "'";
}

std::string number(double x) { return format_number(x, "%.10g"); }

void common_settings(std::ostringstream& gp, const Plot& p, const std::string& output) {
    // noenhanced: metric names such as ops_per_s would otherwise turn into subscripts.
    gp << "reset\n"
       << "set terminal svg size " << p.width << "," << p.height
       << " dynamic noenhanced font 'sans,11' background '#ffffff'\n"
       << "set output " << quoted(output) << "\n"
       << "set border 3 lc rgb '#555555'\nset tics nomirror\n"
       << "set grid ytics lc rgb '#e3e3e3' lt 1\n"
       << "set key top right noopaque samplen 2\n";
}

void line_plot(std::ostringstream& gp, const LinePlot& p, size_t index) {
    gp << "set xlabel " << quoted(p.xlabel) << "\nset ylabel " << quoted(p.ylabel) << "\n"
       << "set yrange [0:*]\n";
    std::vector<std::string> terms;
    for (size_t i = 0; i < p.lines.size(); i++) {
        const Line& line = p.lines[i];
        std::string block = "$l" + std::to_string(index) + "_" + std::to_string(i);
        gp << block << " << EOD\n";
        for (const auto& segment : line.segments) {
            for (const auto& [x, y] : segment)
                if (std::isfinite(x) && std::isfinite(y))
                    gp << number(x) << " " << number(y) << "\n";
            gp << "\n"; // a blank line breaks the line between segments (rounds)
        }
        gp << "EOD\n";
        terms.push_back(block + " using 1:2 with linespoints lw 1.6 pt 7 ps 0.45 lc rgb " +
                        quoted(line.colour) +
                        (line.title.empty() ? " notitle" : " title " + quoted(line.title)));
    }
    if (terms.empty()) {
        gp << "set label 'no samples' at graph 0.5,0.5 center\nplot [0:1][0:1] NaN notitle\n";
        return;
    }
    gp << "plot ";
    for (size_t i = 0; i < terms.size(); i++)
        gp << (i ? ", \\\n     " : "") << terms[i];
    gp << "\n";
}

void bar_plot(std::ostringstream& gp, const BarPlot& p, size_t index) {
    std::string block = "$b" + std::to_string(index);
    gp << block << " << EOD\n";
    for (size_t c = 0; c < p.categories.size(); c++) {
        // The label as a double-quoted data field: gnuplot's data files have no escapes.
        std::string label = p.categories[c];
        for (char& ch : label)
            if (ch == '"')
                ch = '\'';
        gp << '"' << label << '"';
        for (const auto& g : p.groups)
            gp << " " << number(c < g.values.size() ? g.values[c] : 0);
        gp << "\n";
    }
    gp << "EOD\n"
       << "set xlabel " << quoted(p.xlabel) << "\nset ylabel " << quoted(p.ylabel) << "\n"
       << "set yrange [0:*]\nset style data histogram\n"
       << "set style histogram clustered gap 1\nset style fill solid 0.85 border -1\n";
    if (p.categories.size() > 6)
        gp << "set xtics rotate by 40 right\n";
    if (p.categories.empty() || p.groups.empty()) {
        gp << "set label 'empty' at graph 0.5,0.5 center\nplot [0:1][0:1] NaN notitle\n";
        return;
    }
    gp << "plot ";
    for (size_t g = 0; g < p.groups.size(); g++)
        gp << (g ? ", \\\n     '' " : block + " ") << "using " << g + 2 << (g ? "" : ":xtic(1)")
           << " title " << quoted(p.groups[g].title) << " lc rgb " << quoted(p.groups[g].colour);
    gp << "\n";
}

// gnuplot's SVGs each define the same ids (gpPt0, gpDot, gnuplot_canvas, ...): inlined
// side by side they would clash, so every id and every reference to one gets a prefix.
std::string inline_ready(std::string svg, const std::string& prefix) {
    auto start = svg.find("<svg");
    if (start != std::string::npos)
        svg.erase(0, start); // the XML declaration is not allowed inside HTML
    const std::pair<std::string, std::string> rewrites[] = {
        {"id='", "id='" + prefix},           {"id=\"", "id=\"" + prefix},
        {"href='#", "href='#" + prefix},     {"href=\"#", "href=\"#" + prefix},
        {"url(#", "url(#" + prefix}};
    for (const auto& [from, to] : rewrites)
        for (size_t at = svg.find(from); at != std::string::npos; at = svg.find(from, at + to.size()))
            svg.replace(at, from.size(), to);
    return svg;
}

} // namespace

std::string gnuplot_script(const std::vector<Plot>& plots, const std::string& dir) {
    std::ostringstream gp;
    for (size_t i = 0; i < plots.size(); i++) {
        common_settings(gp, plots[i], dir + "/p" + std::to_string(i) + ".svg");
        if (plots[i].kind == Plot::Kind::line)
            line_plot(gp, plots[i].line, i);
        else
            bar_plot(gp, plots[i].bars, i);
        gp << "unset output\n";
    }
    return gp.str();
}

Result<std::vector<std::string>> render_svgs(const std::vector<Plot>& plots, const std::string& id_prefix) {
    if (plots.empty())
        return std::vector<std::string>{};
    std::string templ = (fs::temp_directory_path() / "initbench-report-XXXXXX").string();
    if (!::mkdtemp(templ.data()))
        return errno_error("mkdtemp " + templ);
    const fs::path dir = templ;
    struct Cleanup {
        fs::path dir;
        ~Cleanup() {
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    } cleanup{dir};

    const fs::path script = dir / "plots.gp";
    {
        std::ofstream out(script);
        out << gnuplot_script(plots, dir.string());
        if (!out)
            return errno_error("write " + script.string());
    }
    ChildRun run;
    const char* gnuplot = std::getenv("INITBENCH_GNUPLOT"); // tests point this at a missing one
    run.argv = {gnuplot && *gnuplot ? gnuplot : "gnuplot", script.string()};
    run.timeout_s = 120;
    ChildOutcome outcome = run_child(run);
    if (outcome.end != ChildOutcome::End::exited || outcome.exit_code != 0) {
        std::string why = !outcome.error.empty() ? outcome.error : outcome.stderr_text;
        if (outcome.exit_code == 127 || why.find("No such file") != std::string::npos)
            why = "gnuplot not found (Debian: apt-get install gnuplot-nox)";
        return Error{"gnuplot failed: " + why};
    }
    std::vector<std::string> svgs;
    for (size_t i = 0; i < plots.size(); i++) {
        std::string svg = read_whole_file(dir / ("p" + std::to_string(i) + ".svg")).value_or("");
        if (svg.find("<svg") == std::string::npos)
            return Error{"gnuplot wrote no SVG for plot " + std::to_string(i) + ": " + outcome.stderr_text};
        svgs.push_back(inline_ready(std::move(svg), id_prefix + std::to_string(i) + "-"));
    }
    return svgs;
}

} // namespace initbench::plots
