// `initbench compare`'s command line: options, sides, output and exit code.
#include "host/cli/compare_cli.h"

#include "common/text.h"
#include "host/compare/compare.h"
#include "host/compare/compare_render.h"
#include "host/cli/subcommand.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <unistd.h>

namespace initbench {
namespace {

constexpr const char* kCompareHelp =
    R"(Each SIDE is a results file, several joined by commas, or a directory of *.json
files; the files of a side are pooled. The first SIDE is the base; every other one is
compared with it. A sample is one run (the mean of its rounds) when every side has two runs
or more, else one round (--unit). Rounds of one boot a side are judged only under --clock
icount: on other clocks the changes are shown as ~...~ with no verdict, and --fail-on
fires on the change alone. Under --fail-on, a run that failed (a log cut off, a timeout, a
boot failure), a run with error records, and a metric a rule names that a side lacks each
fail the gate too (FAIL lines name them), unless --allow-missing. Details: docs/compare.md.

Exit codes:
  0  compared; no --fail-on rule fired
  1  the gate failed: a --fail-on rule fired (on the change alone where there is no
     verdict), or a side failed, had error records or lacks a metric a rule names
  2  bad command line, or a --fail-on rule that matches no metric
  3  refused: unreadable or incomplete results, mixed clocks, different experiments)";

struct CompareCli {
    std::vector<std::string> sides, labels, fail_on, only;
    std::string format = "auto", method = "auto", unit = "auto";
    double confidence = 0.95, min_effect = 5;
    bool force = false, details = false, allow_missing = false;
};

// "auto": a terminal's colours when stdout is one, else plain text.
Format parse_format(const std::string& f) {
    static constexpr Named<Format> kFormats[] = {{Format::terminal, "terminal"}, {Format::text, "text"},
                                                 {Format::markdown, "markdown"}, {Format::json, "json"},
                                                 {Format::csv, "csv"}};
    return value_named(kFormats, f).value_or(::isatty(1) ? Format::terminal : Format::text);
}

void keep_only(Report& report, const std::vector<std::string>& patterns) {
    if (patterns.empty())
        return;
    auto wanted = [&](const std::string& id, const std::string& name) {
        return std::any_of(patterns.begin(), patterns.end(),
                           [&](const std::string& p) { return metric_matches(p, id, name); });
    };
    std::erase_if(report.metrics, [&](const MetricRow& m) { return !wanted(m.id, m.name); });
    std::erase_if(report.histograms, [&](const HistRow& h) { return !wanted(h.id, h.name); });
}

int run_compare(const CompareCli& cli) {
    std::vector<FailRule> rules;
    for (const auto& text : cli.fail_on) {
        auto rule = parse_fail_rule(text);
        if (!rule) {
            std::fprintf(stderr, "initbench compare: %s\n", rule.error().message().c_str());
            return kCompareUsage;
        }
        rules.push_back(rule.value());
    }
    if (!cli.labels.empty() && cli.labels.size() != cli.sides.size()) {
        std::fprintf(stderr, "initbench compare: %zu labels for %zu sides\n", cli.labels.size(),
                     cli.sides.size());
        return kCompareUsage;
    }
    auto named = expand_sides(cli.sides, cli.labels);
    if (!named) {
        std::fprintf(stderr, "initbench compare: %s\n", named.error().message().c_str());
        return kCompareUsage;
    }
    const auto& args = named.value().args;
    const auto& labels = named.value().labels;
    if (args.size() < 2) {
        std::fprintf(stderr, "initbench compare: one side (%s): give two or more, or an ab directory\n",
                     labels.empty() ? "" : labels[0].c_str());
        return kCompareUsage;
    }
    // The gate: with rules, a failed run is not refused but fails it, and says why.
    const bool gate = !rules.empty() && !cli.allow_missing;
    std::vector<Side> sides;
    for (size_t i = 0; i < args.size(); i++) {
        auto side = load_side(args[i], labels[i], gate);
        if (!side) {
            std::fprintf(stderr, "initbench compare: refused: %s\n",
                         side.error().message().c_str());
            return kCompareRefused;
        }
        sides.push_back(std::move(side.value()));
    }
    const std::vector<std::string> gate_failures = gate ? failed_runs(sides) : std::vector<std::string>{};
    for (auto& side : sides)
        std::erase_if(side.runs, [](const RunFile& r) { return !r.failure.empty(); });
    for (const auto& side : sides)
        if (side.runs.empty()) {
            for (const auto& line : gate_failures)
                std::fprintf(stderr, "FAIL %s\n", line.c_str());
            std::fprintf(stderr, "initbench compare: %s has no complete run: nothing to compare\n",
                         side.label.c_str());
            return kCompareFailed;
        }

    CompareOptions options;
    options.method = value_named(compare_render::kMethodNames, cli.method).value_or(Method::auto_);
    options.confidence = cli.confidence;
    if (named.value().look_confidence) { // an ab directory: as its last look judged it
        options.confidence = *named.value().look_confidence;
        options.look = named.value().look;
    }
    options.min_effect_pct = cli.min_effect;
    options.force = cli.force;
    options.unit = cli.unit == "round" ? SampleUnit::round
                   : cli.unit == "run" ? SampleUnit::run
                                       : SampleUnit::auto_;
    auto report = compare_sides(sides, options);
    if (!report) {
        std::fprintf(stderr, "initbench compare: refused: %s\n", report.error().message().c_str());
        return kCompareRefused;
    }
    keep_only(report.value(), cli.only);
    for (const auto& w : report.value().environment_warnings)
        std::fprintf(stderr, "initbench compare: warning: %s\n", w.c_str());
    std::cout << render(report.value(), {parse_format(cli.format), cli.details}) << std::flush;

    RuleOutcome outcome = apply_fail_rules(report.value(), rules);
    for (const auto& rule : outcome.unmatched)
        std::fprintf(stderr, "initbench compare: --fail-on %s matches no metric\n", rule.c_str());
    for (const auto& line : gate_failures)
        std::fprintf(stderr, "FAIL %s\n", line.c_str());
    if (gate)
        for (const auto& line : outcome.missing)
            std::fprintf(stderr, "FAIL %s\n", line.c_str());
    for (const auto& line : outcome.fired)
        std::fprintf(stderr, "FAIL %s\n", line.c_str());
    if (outcome.unqualified)
        std::fprintf(stderr,
                     "initbench compare: note: the failure is on the effect size alone, "
                     "unqualified by significance: %s\n",
                     report.value().no_verdict.c_str());
    if (!outcome.unmatched.empty())
        return kCompareUsage;
    const bool failed = !outcome.fired.empty() || !gate_failures.empty() || (gate && !outcome.missing.empty());
    return failed ? kCompareFailed : kCompareOk;
}

} // namespace

void add_compare_command(CLI::App& app) {
    auto cli = std::make_shared<CompareCli>();
    auto* cmd = app.add_subcommand("compare", "Compare the results of kernels with statistics");
    cmd->footer(kCompareHelp);
    cmd->add_option("sides", cli->sides, "SIDE SIDE [SIDE ...]: base first; or an ab directory (its sides)")
        ->required()
        ->expected(1, -1);
    cmd->add_option("--format", cli->format, "auto: terminal on a terminal, text otherwise")
        ->check(CLI::IsMember({"auto", "terminal", "text", "markdown", "json", "csv"}))
        ->capture_default_str();
    cmd->add_option("--method", cli->method,
                    "auto: welch under --clock icount, permutation on the wall clock; welch: "
                    "Welch's t-test; permutation: the permutation test of the means (no "
                    "assumption of normal noise); lkp: >= 3 samples a side and separated ranges; "
                    "threshold: the minimum effect alone (deterministic clocks); paired: run i "
                    "of each side against run i of the base (files given in boot order, booted "
                    "one after the other), the t-test of their log ratios")
        ->check(CLI::IsMember(names_of(compare_render::kMethodNames)))
        ->capture_default_str();
    cmd->add_option("--unit", cli->unit,
                    "What one sample is: round (judged on any clock), run (a file: the mean of "
                    "its rounds), or auto (runs when every side has two or more; else rounds, "
                    "judged only under --clock icount)")
        ->check(CLI::IsMember({"auto", "round", "run"}))
        ->capture_default_str();
    cmd->add_option("--confidence", cli->confidence, "Confidence level of the tests")
        ->check(CLI::Range(0.5, 0.9999))
        ->capture_default_str();
    cmd->add_option("--min-effect", cli->min_effect,
                    "Percent change below which nothing is significant")
        ->check(CLI::Range(0.0, 1000.0))
        ->capture_default_str();
    cmd->add_option("--fail-on", cli->fail_on,
                    "METRIC:+N% / METRIC:-N% / METRIC:N%: exit 1 on such a significant change, or "
                    "on such a change alone where there is no verdict (METRIC: a glob on the "
                    "metric's id or name)")
        ->allow_extra_args(false); // one value per use: `--metric X a.json b.json` keeps the sides
    cmd->add_flag("--allow-missing", cli->allow_missing,
                  "Let --fail-on pass sides with failed runs, error records or a metric missing "
                  "(the old, unsafe gate: failed runs are then refused, exit 3)");
    cmd->add_option("--labels", cli->labels, "Names of the sides, comma-separated")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_option("--metric", cli->only, "Show only metrics matching this glob (repeatable)")
        ->allow_extra_args(false);
    cmd->add_flag("--details", cli->details, "Also print min, max, samples and p-values");
    cmd->add_flag("--force", cli->force, "Compare different experiments (never different clocks)");
    cmd->callback([cli] { run_subcommand("compare", kCompareRefused, [&] { return run_compare(*cli); }); });
}

} // namespace initbench
