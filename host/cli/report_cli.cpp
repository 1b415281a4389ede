// The command line of `initbench report`.
#include "host/cli/report_cli.h"

#include "host/base/output_file.h"
#include "host/report/report.h"
#include "host/report/report_html.h"
#include "host/cli/subcommand.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

namespace initbench {
namespace {

constexpr const char* kReportHelp = R"(SIDEs as compare takes them: a results file, several joined by commas, or a directory
of *.json files. One SIDE gives a page for that run (or pool of runs); two or more compare
every later side with the first, with compare's statistics. Plots are drawn by gnuplot
(Debian: gnuplot-nox); the page has everything inline and fetches nothing.

Exit codes:
  0  written
  2  bad command line, or a SIDE that names no file
  3  written, but a file or the comparison was refused: the page says why, with no numbers
     from a refused file
  4  the page could not be written)";

struct ReportCli {
    std::vector<std::string> sides, labels;
    std::string out = "report.html";
};

int run_report(const ReportCli& cli) {
    auto sides = report::load_sides(cli.sides, cli.labels);
    if (!sides) {
        std::fprintf(stderr, "initbench report: %s\n", sides.error().message().c_str());
        return kReportUsage;
    }
    CompareOptions options;
    if (auto named = expand_sides(cli.sides, cli.labels); named && named.value().look_confidence) {
        options.confidence = *named.value().look_confidence; // an ab directory: as its last look judged it
        options.look = named.value().look;
    }
    report::Page page = report::analyse(std::move(sides.value()), options);
    report::HtmlResult page_html = report::render_html(page);
    if (!page_html.plot_error.empty())
        std::fprintf(stderr, "initbench report: the page has no plots: %s\n", page_html.plot_error.c_str());
    if (auto written = write_output_file(cli.out, page_html.html); !written) {
        std::fprintf(stderr, "initbench report: %s\n", written.error().message().c_str());
        return kReportWrite;
    }
    bool refused = !page.comparison_refused.empty();
    for (const auto& side : page.sides)
        for (const auto& f : side.files)
            if (!f.run) {
                refused = true;
                std::fprintf(stderr, "initbench report: refused: %s\n", f.refused.c_str());
            }
    if (!page.comparison_refused.empty())
        std::fprintf(stderr, "initbench report: comparison refused: %s\n", page.comparison_refused.c_str());
    std::printf("report: %s\n", cli.out.c_str());
    return refused ? kReportRefused : kReportOk;
}

} // namespace

void add_report_command(CLI::App& app) {
    auto cli = std::make_shared<ReportCli>();
    auto* cmd = app.add_subcommand("report", "Write one self-contained HTML page with plots for a run or a comparison");
    cmd->footer(kReportHelp);
    cmd->add_option("sides", cli->sides, "SIDE [SIDE ...]: base first; or an ab directory (its sides)")->required()->expected(1, -1);
    cmd->add_option("-o,--out", cli->out, "The HTML file to write")->capture_default_str();
    cmd->add_option("--labels", cli->labels, "Names of the sides, comma-separated")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->callback([cli] { run_subcommand("report", kReportUsage, [&] { return run_report(*cli); }); });
}

} // namespace initbench
