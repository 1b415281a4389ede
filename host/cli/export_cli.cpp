// `initbench export`'s command line: the sides, the format and what the user adds; every
// check of the input before a byte is written. The work is host/export/.
#include "host/cli/export_cli.h"

#include "common/text.h"
#include "host/base/output_file.h"
#include "host/compare/compare.h"
#include "host/compare/compare_render.h"
#include "host/export/export_read.h"
#include "host/export/exporters.h"
#include "host/cli/subcommand.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

namespace initbench {
namespace {

using namespace exporting;

// Exit codes of `initbench export` (also in its --help and docs/export.md).
enum ExportExit : int { kExportOk = 0, kExportWriteFailed = 1, kExportUsage = 2, kExportRefused = 3 };

constexpr const char* kExportHelp =
    R"(Each SIDE is what compare takes (a results file, several joined by commas, a
directory of *.json) or a directory `initbench ab` wrote (its sides, its base as the
baseline, judged at its last look's level). Every boot's metrics are exported as DONE
numbers, an unsupported probe as SKIP, a failed run or one with error records as ERROR
(none of its numbers). With a baseline, each compared metric of each other side is one more
test: FAIL (DIFFERENT for the worse, or past a --fail-on limit), PASS (SAME, or DIFFERENT
for the better), DONE (UNKNOWN: never PASS or FAIL). --git-* values are for the last side,
or LABEL=VALUE for the side LABEL. Details: docs/export.md.

Exit codes:
  0  exported (whatever the tests' statuses)
  1  the output file could not be written
  2  bad command line: a bad --origin, --git-* value or --log-url
  3  refused: a file that is not results, a side with no files, a --baseline that names
     no side, sides compare refuses to compare)";

struct ExportCli {
    std::vector<std::string> sides, labels, fail_on, commits, urls, branches, trees;
    std::string format, origin, baseline, log_url, out;
    std::string method = "auto";
    double confidence = 0.95, min_effect = 5;
};

// "LABEL=VALUE" for the side LABEL, or VALUE for the last side. A URL's '=' is in its query,
// after a ':', so only a '=' before any ':' or '/' names a side.
std::pair<std::string, std::string> split_side(const std::string& arg) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || arg.find_first_of(":/") < eq)
        return {"", arg};
    return {arg.substr(0, eq), arg.substr(eq + 1)};
}

Result<ModelOptions> model_options(const ExportCli& cli) {
    ModelOptions o;
    for (const auto& text : cli.fail_on) {
        auto rule = parse_fail_rule(text);
        if (!rule)
            return rule.error();
        o.fail_on.push_back(rule.value());
    }
    std::map<std::string, KernelFacts> facts;
    auto gather = [&](const std::vector<std::string>& args, std::string KernelFacts::*field) {
        for (const auto& a : args) {
            auto [label, value] = split_side(a);
            facts[label].*field = value;
        }
    };
    gather(cli.commits, &KernelFacts::git_commit_hash);
    gather(cli.urls, &KernelFacts::git_repository_url);
    gather(cli.branches, &KernelFacts::git_branch);
    gather(cli.trees, &KernelFacts::tree_name);
    for (const auto& [label, f] : facts) {
        IB_TRY(check_facts(f));
        o.facts.emplace_back(label, f);
    }
    return o;
}

Status check_usage(const ExportCli& cli) {
    if (cli.format == "kcidb")
        IB_TRY(check_origin(cli.origin));
    if (!cli.log_url.empty())
        IB_TRY(check_log_url(cli.log_url));
    return ok();
}

int fail(int code, const std::string& message) {
    std::fprintf(stderr, "initbench export: %s\n", message.c_str());
    return code;
}

int run_export(const ExportCli& cli) {
    if (auto usage = check_usage(cli); !usage)
        return fail(kExportUsage, usage.error().message());
    auto options = model_options(cli);
    if (!options)
        return fail(kExportUsage, options.error().message());
    ReadRequest request{cli.sides, cli.labels, cli.baseline, {}};
    request.options.method = value_named(compare_render::kMethodNames, cli.method).value_or(Method::auto_);
    request.options.confidence = cli.confidence;
    request.options.min_effect_pct = cli.min_effect;
    auto input = read_input(request);
    if (!input)
        return fail(kExportRefused, "refused: " + input.error().message());
    auto model = build_model(input.value(), options.value());
    if (!model)
        return fail(kExportRefused, model.error().message());
    for (const auto& w : model.value().warnings)
        std::fprintf(stderr, "initbench export: warning: %s\n", w.c_str());
    const std::string text =
        cli.format == "kcidb"
            ? kcidb_document(model.value(), {cli.origin, cli.log_url}).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
            : junit_document(model.value());
    if (cli.out.empty() || cli.out == "-") {
        std::cout << text << std::flush;
        return kExportOk;
    }
    auto written = write_output_file(cli.out, text);
    return written ? kExportOk : fail(kExportWriteFailed, written.error().message());
}

} // namespace

void add_export_command(CLI::App& app) {
    auto cli = std::make_shared<ExportCli>();
    auto* cmd = app.add_subcommand("export", "Export results and verdicts for KernelCI's KCIDB or as JUnit XML");
    cmd->footer(kExportHelp);
    cmd->add_option("sides", cli->sides, "SIDE [SIDE ...]")->required()->expected(1, -1);
    cmd->add_option("--format", cli->format, "kcidb: KCIDB I/O schema v5.3 JSON; junit: JUnit XML")
        ->required()
        ->check(CLI::IsMember({"kcidb", "junit"}));
    cmd->add_option("--origin", cli->origin,
                    "KCIDB's origin: your CI system's name (lower-case letters, digits, _); every id "
                    "starts with it. Required for --format kcidb");
    cmd->add_option("--baseline", cli->baseline,
                    "The side the others are judged against: one of the SIDEs (its text or label), or "
                    "a SIDE of its own");
    cmd->add_option("--labels", cli->labels, "Names of the sides, comma-separated")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_option("--fail-on", cli->fail_on,
                    "METRIC:+N% / METRIC:-N% / METRIC:N%: a metric it names FAILs when DIFFERENT "
                    "past the limit, and PASSes otherwise")
        ->allow_extra_args(false);
    cmd->add_option("--method", cli->method, "As compare's --method")
        ->check(CLI::IsMember(names_of(compare_render::kMethodNames)))
        ->capture_default_str();
    cmd->add_option("--confidence", cli->confidence, "As compare's --confidence")
        ->check(CLI::Range(0.5, 0.9999))
        ->capture_default_str();
    cmd->add_option("--min-effect", cli->min_effect, "As compare's --min-effect")
        ->check(CLI::Range(0.0, 1000.0))
        ->capture_default_str();
    cmd->add_option("--git-commit-hash", cli->commits, "[LABEL=]HASH: the kernel's commit (40 hex digits)")
        ->allow_extra_args(false);
    cmd->add_option("--git-repository-url", cli->urls, "[LABEL=]URL: its repository (https://)")
        ->allow_extra_args(false);
    cmd->add_option("--git-branch", cli->branches, "[LABEL=]BRANCH: its branch")->allow_extra_args(false);
    cmd->add_option("--tree-name", cli->trees, "[LABEL=]NAME: its tree (mainline, net-next, ...)")
        ->allow_extra_args(false);
    cmd->add_option("--log-url", cli->log_url,
                    "Where the console logs are served: each test's log_url is URL/NAME.log, NAME the "
                    "results file's");
    cmd->add_option("--out", cli->out, "Write here instead of standard output");
    cmd->callback([cli] { run_subcommand("export", kExportRefused, [&] { return run_export(*cli); }); });
}

} // namespace initbench
