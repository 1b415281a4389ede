#include "host/engine/step_boots.h"

#include "common/text.h"
#include "host/boot/boot_backend.h"
#include "host/boot/boot_files.h"
#include "host/compare/bisect_decide.h"
#include "host/engine/bisect_inputs.h"
#include "host/results/results.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace initbench {

namespace fs = std::filesystem;

namespace {
std::string num_text(double x) { return format_number(x, "%.6g"); }
} // namespace

void bisect_say(const std::string& line) {
    std::cout << "bisect-step: " << line << "\n" << std::flush;
}

// Runs the build; its output goes to our stderr so that stdout stays the step's figures.
int run_build(const BisectCli& cli) {
    std::vector<std::string> argv = cli.build;
    if (!cli.build_shell.empty())
        argv = {"/bin/sh", "-c", cli.build_shell};
    if (argv.empty())
        return kBisectGood;
    ChildRun run;
    run.argv = argv;
    run.timeout_s = cli.build_timeout_s;
    run.on_output = [](std::string_view bytes) {
        (void)!::write(2, bytes.data(), bytes.size());
        return false;
    };
    ChildOutcome out = run_child(run);
    using End = ChildOutcome::End;
    if (!out.stderr_text.empty() && out.end != End::spawn_failed)
        std::cerr << out.stderr_text << (out.stderr_text.back() == '\n' ? "" : "\n");
    if (out.end == End::interrupted) {
        bisect_say("interrupted while building");
        return kBisectInterrupted;
    }
    std::string why;
    if (out.end == End::spawn_failed)
        why = "could not start: " + out.error.substr(0, out.error.find('\n'));
    else if (out.end == End::timeout || out.end == End::lingered)
        why = "did not finish in " + num_text(cli.build_timeout_s) + " s";
    else if (out.term_signal)
        why = "killed by signal " + std::to_string(out.term_signal);
    else if (out.exit_code != 0)
        why = "exited with " + std::to_string(out.exit_code);
    if (why.empty())
        return kBisectGood;
    bisect_say("skip: the build " + why);
    return kBisectSkip;
}

namespace {

struct Boots {
    std::vector<RunFile> runs;
    std::vector<std::string> saved; // the paths written
    int exit_code = kBisectGood; // skip or abort when a boot failed
};

} // namespace

std::string step_save_path(const std::string& dir, const char* label, unsigned step, unsigned boot) {
    char name[64];
    std::snprintf(name, sizeof name, "%s-%03u-boot%u.json", label, step, boot);
    return (fs::path(dir) / name).string();
}

unsigned next_step_number(const std::string& dir) {
    unsigned n = 1;
    std::error_code ec;
    while (fs::exists(step_save_path(dir, "step", n, 1), ec) || fs::exists(step_save_path(dir, "baseline", n, 1), ec) ||
           fs::exists(step_save_path(dir, "good", n, 1), ec))
        n++;
    return n;
}

namespace {

// Boots `run` (its kernel chosen) `count` more times through `backend`, numbered from `first`: each boot's
// document is saved (LABEL-…), and a failed boot ends the step (a skip, or an abort when
// interrupted).
Boots boot_all(const BisectCli& cli, BootBackend& backend, const char* label, const RunOptions& run,
               unsigned step_number, unsigned first, unsigned count) {
    Boots out;
    if (!cli.save_dir.empty())
        fs::create_directories(cli.save_dir);
    for (unsigned i = first; i < first + count; i++) {
        BootRequest request{run, "", {}};
        if (!cli.save_dir.empty())
            request.out_path = step_save_path(cli.save_dir, label, step_number, i);
        auto started = backend.start(request);
        std::optional<BootEnded> ended;
        if (started)
            ended = backend.wait_any();
        if (!ended || backend.interrupted() || ended->exit_code == kExitInterrupted) {
            bisect_say("interrupted while booting" +
                       (ended && ended->outcome ? ": " + ended->outcome->verdict.reason : std::string()));
            out.exit_code = kBisectInterrupted;
            return out;
        }
        if (!ended->outcome) {
            bisect_say("skip: boot " + std::to_string(i) + " left no results: " + ended->error);
            out.exit_code = kBisectSkip;
            return out;
        }
        if (!request.out_path.empty() && ended->error.empty())
            out.saved.push_back(request.out_path);
        const nlohmann::json& doc = ended->outcome->document;
        const std::string name = "boot " + std::to_string(i);
        if (!ended->error.empty() || ended->exit_code != kExitOk) {
            // A run with error records is never good: its numbers may be of another
            // experiment (a misspelled key) or of a load that failed.
            std::string why = !ended->error.empty() ? ended->error
                                                    : doc.value("verdict", "?") + " (" + doc.value("reason", "") + ")";
            if (auto failed = run_file(doc, name); failed && !failed.value().errors.empty())
                why += ", the first: " + failed.value().errors.front();
            const std::string whose = std::string_view(label) == "baseline" ? "baseline " : "";
            bisect_say("skip: " + whose + "boot " + std::to_string(i) + " of " +
                std::to_string(std::max(cli.boots, cli.max_boots)) + ": " + why);
            out.exit_code = kBisectSkip;
            return out;
        }
        auto parsed = results_of(doc, name);
        if (!parsed) {
            bisect_say("skip: " + parsed.error().message());
            out.exit_code = kBisectSkip;
            return out;
        }
        out.runs.push_back(std::move(parsed.value()));
    }
    return out;
}

} // namespace

Result<std::optional<RunOptions>> plan_baseline_boot(const BisectCli& cli, const std::vector<std::string>& params,
                                                     const char* argv0) {
    if (cli.baseline_kernel.empty())
        return std::optional<RunOptions>{};
    std::vector<std::string> base_params = params;
    if (!cli.baseline_params_file.empty()) {
        auto words = read_params(cli.baseline_params_file);
        if (!words)
            return Error{"cannot read the baseline's parameters file: " + words.error().message()};
        base_params = std::move(words.value());
    }
    auto run = plan_boot(cli.boot, base_params, argv0);
    if (!run)
        return Error{"the baseline kernel's boot: " + run.error().message()};
    return std::optional<RunOptions>{std::move(run.value())};
}

int StepBoots::one(bool of_baseline) {
    auto& into = of_baseline ? bases : steps;
    const unsigned n = unsigned(into.size() + 1);
    if (!cli.save_dir.empty() && number == 0)
        number = next_step_number(cli.save_dir); // before this step's first file
    Boots more = of_baseline ? boot_all(cli, backend, "baseline", *baseline, number, n, 1)
                             : boot_all(cli, backend, label, step, number, n, 1);
    if (!of_baseline)
        saved.insert(saved.end(), more.saved.begin(), more.saved.end());
    if (more.exit_code == kBisectGood)
        into.push_back(std::move(more.runs[0]));
    return more.exit_code;
}

int StepBoots::pair() {
    const bool base_first = baseline && steps.size() % 2 == 0;
    int rc = base_first ? one(true) : int(kBisectGood);
    if (rc == kBisectGood)
        rc = one(false);
    if (rc == kBisectGood && baseline && !base_first)
        rc = one(true);
    return rc;
}

} // namespace initbench
