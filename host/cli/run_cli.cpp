#include "host/cli/run_cli.h"

#include "common/summary.h"
#include "host/base/output_file.h"
#include "host/boot/boot.h"
#include "host/boot/boot_backend.h"
#include "host/boot/boot_files.h"
#include "host/boot/firmware_boot.h"
#include "host/results/environment.h"
#include "host/cli/boot_cli.h"
#include "host/engine/boot_plan.h"
#include "host/cli/subcommand.h"
#include "host/image/settings_check.h"
#include "host/results/results.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <unistd.h>

namespace initbench {
namespace {

constexpr const char* kExitCodes = R"(Exit codes:
  0  complete results without error records
  1  complete results that contain error records (bad parameter, failed step)
  2  bad command line, or initbench.* parameters the init would refuse (found before the boot)
  3  boot failure: QEMU did not start, no records arrived, or the kernel panicked;
     or the kernel cannot boot as --boot asks (damaged bzImage, no PVH note)
  4  timeout: the run did not finish in time (host --timeout, also before the first
     record, or the guest's watchdog)
  5  incomplete or corrupt output (cut off, damaged or missing records, or records of a
     version this initbench cannot read)
  6  interrupted: SIGINT/SIGTERM/SIGHUP to initbench, or QEMU killed from outside;
     QEMU stopped, partial output kept)";


// What run and parse both do with a checked log: the document, the summary, the exit code.
struct OutputOptions {
    std::string out_path;
    bool quiet = false;
    std::string format = "text";
};

void add_output_options(CLI::App& cmd, OutputOptions& o) {
    cmd.add_option("--out", o.out_path, "Write the results JSON document here");
    cmd.add_flag("--quiet", o.quiet, "Print no summary");
    cmd.add_option("--format", o.format, "Summary printed: text, ktap or lava (test cases from the records)")
        ->check(CLI::IsMember({"text", "ktap", "lava"}))
        ->capture_default_str();
}

// The document into --out, the summary (or, --quiet, why the run failed) on the terminal;
// the verdict's exit code.
int write_outputs(const BootOutcome& outcome, const OutputOptions& o) {
    if (!o.out_path.empty()) {
        if (auto written = write_document(o.out_path, outcome); !written) {
            std::fprintf(stderr, "initbench: %s\n", written.error().message().c_str());
            return kExitUsage;
        }
    }
    if (!o.quiet)
        std::cout << printed_summary(outcome.log, outcome.verdict, o.format) << std::flush;
    else // quiet hides the summary, never a failure: its reason and its error records
        std::fputs(failure_lines(outcome).c_str(), stderr);
    return outcome.verdict.exit_code;
}

struct RunCommand {
    BootOptions boot;
    std::string kernel, log_path;
    bool progress = false, no_host_check = false;
    std::vector<std::string> params;
    OutputOptions output;
};

int run(const RunCommand& c, const std::string& argv0) {
    for (const std::string& out : {c.output.out_path, c.log_path})
        if (auto s = out.empty() ? ok() : output_writable(out); !s) {
            std::fprintf(stderr, "initbench: %s\n", s.error().message().c_str());
            return kExitUsage;
        }
    // A file that is not a kernel, or not an initramfs, is refused here, before QEMU.
    if (auto s = check_kernel_file(c.kernel, c.boot.arch); !s) {
        std::fprintf(stderr, "initbench: --kernel %s\n", s.error().message().c_str());
        return kExitUsage;
    }
    auto planned = plan_boot(c.boot, c.params, argv0.c_str());
    if (!planned) {
        std::fprintf(stderr, "initbench: %s\n", planned.error().message().c_str());
        return kExitUsage;
    }
    // A kernel the firmware path cannot boot is the command line's mistake, found before QEMU.
    if (auto s = check_firmware_kernel(c.kernel, firmware_path(c.boot.boot)); !s) {
        std::fprintf(stderr, "initbench: --kernel %s\n", s.error().message().c_str());
        return kExitUsage;
    }
    RunOptions& run = planned.value();
    if (!c.no_host_check &&
        !settings_accepted("run", run.boot.image, c.params, "--no-host-check boots anyway", run.boot.cpus))
        return kExitUsage;
    run.boot.kernel = c.kernel;
    run.log_path = c.log_path;
    run.echo = c.progress || ::isatty(2);
    auto kernel_boot = choose_kernel_boot(c.kernel, c.boot.arch, boot_mode(c.boot.boot), run.cache_dir);
    if (!kernel_boot) {
        // A kernel that cannot boot as asked (damaged bzImage, no PVH note) fails before QEMU starts.
        std::fprintf(stderr, "initbench: %s\n", kernel_boot.error().message().c_str());
        return kExitBootFailure;
    }
    run.kernel_boot = std::move(kernel_boot.value());
    auto backend = in_process_boot_backend();
    if (auto started = backend->start(BootRequest{std::move(run), "", {}}); !started) {
        std::fprintf(stderr, "initbench: %s\n", started.error().message().c_str());
        return kExitInterrupted;
    }
    return write_outputs(*backend->wait_any()->outcome, c.output);
}

} // namespace

void add_run_command(CLI::App& app, const std::string& argv0) {
    auto c = std::make_shared<RunCommand>();
    auto* cmd = app.add_subcommand("run", "Boot a kernel in QEMU with the initbench image");
    cmd->footer(kExitCodes);
    cmd->add_option("--kernel", c->kernel, "Kernel image (bzImage, vmlinuz, Image)")
        ->required()->check(CLI::ExistingFile);
    add_boot_options(*cmd, c->boot);
    add_output_options(*cmd, c->output);
    cmd->add_option("--log", c->log_path, "Write the raw console log here");
    cmd->add_flag("--progress", c->progress, "Echo the console while it runs (default on a terminal)");
    cmd->add_flag("--no-host-check", c->no_host_check,
                  "Boot even with initbench.* parameters the host finds bad (the init reports them as error "
                  "records)");
    cmd->add_option("params", c->params, "Kernel parameters after --, e.g. initbench.profile=NAME");
    cmd->callback([c, argv0] { run_subcommand("run", kExitUsage, [&] { return run(*c, argv0); }); });
}

void add_parse_command(CLI::App& app) {
    auto log_path = std::make_shared<std::string>();
    auto output = std::make_shared<OutputOptions>();
    auto* cmd = app.add_subcommand("parse", "Check a console log captured elsewhere (serial, LAVA)");
    cmd->footer(kExitCodes);
    cmd->add_option("log", *log_path, "Console log")->required()->check(CLI::ExistingFile);
    add_output_options(*cmd, *output);
    cmd->callback([log_path, output] {
        run_subcommand("parse", kExitUsage, [&] {
            auto parsed = parse_log_file(*log_path);
            if (!parsed) {
                std::fprintf(stderr, "initbench parse: %s\n", parsed.error().message().c_str());
                return int(kExitUsage);
            }
            BootOutcome outcome;
            outcome.log = std::move(parsed.value());
            outcome.verdict = judge(outcome.log, std::nullopt);
            outcome.document = results_document(outcome.log, outcome.verdict, {{"source", *log_path}},
                                                parse_environment());
            return write_outputs(outcome, *output);
        });
    });
}

} // namespace initbench
