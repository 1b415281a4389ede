// initbench: the host CLI. Boots kernels with the initbench image and checks what they
// printed (run), or checks a console log captured elsewhere (parse).
#include "common/summary.h"
#include "host/cli/ab.h"
#include "host/cli/bisect.h"
#include "host/cli/boot_cli.h"
#include "host/boot/boot.h"
#include "host/boot/boot_files.h"
#include "host/cli/compare_cli.h"
#include "host/cli/keys_cli.h"
#include "host/cli/schema_cli.h"
#include "host/boot/environment.h"
#include "host/image/settings_check.h"
#include "host/lab/kconfig.h"
#include "host/lab/lava_job.h"
#include "host/image/pack.h"
#include "host/cli/report_cli.h"
#include "host/results/results.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace {

constexpr const char* kExitCodes = R"(Exit codes:
  0  complete results without error records
  1  complete results that contain error records (bad parameter, failed step)
  2  bad command line, or initbench.* parameters the init would refuse (found before the boot)
  3  boot failure: QEMU did not start, no records arrived, or the kernel panicked;
     or the kernel cannot boot as --boot asks (damaged bzImage, no PVH note)
  4  timeout: the run did not finish in time (host --timeout or the guest's watchdog)
  5  incomplete or corrupt output (cut off, damaged or missing records)
  6  interrupted: SIGINT/SIGTERM/SIGHUP to initbench, or QEMU killed from outside;
     QEMU stopped, partial output kept)";

int write_outputs(const initbench::ParsedLog& log, const initbench::Verdict& verdict, nlohmann::json host,
                  nlohmann::json environment, const std::string& out_path, bool quiet,
                  const std::string& format) {
    auto doc = initbench::results_document(log, verdict, std::move(host), std::move(environment));
    if (!out_path.empty()) {
        std::ofstream out(out_path, std::ios::trunc);
        out << doc.dump(1) << "\n";
        if (!out) {
            std::fprintf(stderr, "initbench: cannot write %s\n", out_path.c_str());
            return initbench::kExitUsage;
        }
    }
    if (!quiet) {
        std::cout << initbench::printed_summary(log, verdict, format) << std::flush;
    } else if (verdict.exit_code != initbench::kExitOk) {
        // Quiet hides the summary, never a failure: its reason and its error records.
        std::fprintf(stderr, "initbench: %s: %s\n", verdict.name.c_str(), verdict.reason.c_str());
        for (const auto& r : log.records)
            if (r.json.is_object() && r.json.value("type", "") == "error")
                std::fprintf(stderr, "initbench: error: %s\n", initbench::error_text(r.json).c_str());
    }
    return verdict.exit_code;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"initbench: boot a kernel with a performance experiment and collect its results"};
    app.footer(kExitCodes);
    app.require_subcommand(1);

    initbench::BootOptions boot;
    std::string kernel, out_path;
    bool quiet = false, progress = false, no_host_check = false;
    auto* cmd_run = app.add_subcommand("run", "Boot a kernel in QEMU with the initbench image");
    cmd_run->add_option("--kernel", kernel, "Kernel image (bzImage, vmlinuz, Image)")
        ->required()->check(CLI::ExistingFile);
    initbench::add_boot_options(*cmd_run, boot);
    std::string log_path;
    cmd_run->add_option("--out", out_path, "Write the results JSON document here");
    cmd_run->add_option("--log", log_path, "Write the raw console log here");
    cmd_run->add_flag("--progress", progress, "Echo the console while it runs (default on a terminal)");
    cmd_run->add_flag("--quiet", quiet, "Print no summary");
    cmd_run->add_flag("--no-host-check", no_host_check,
                      "Boot even with initbench.* parameters the host finds bad (the init reports them as error "
                      "records)");
    std::vector<std::string> params;
    cmd_run->add_option("params", params, "Kernel parameters after --, e.g. initbench.profile=NAME");

    std::string parse_log_path;
    auto* cmd_parse = app.add_subcommand("parse", "Check a console log captured elsewhere (serial, LAVA)");
    cmd_parse->add_option("log", parse_log_path, "Console log")->required()->check(CLI::ExistingFile);
    cmd_parse->add_option("--out", out_path, "Write the results JSON document here");
    cmd_parse->add_flag("--quiet", quiet, "Print no summary");
    std::string format = "text";
    for (auto* cmd : {cmd_run, cmd_parse})
        cmd->add_option("--format", format, "Summary printed: text, ktap or lava (test cases from the records)")
            ->check(CLI::IsMember({"text", "ktap", "lava"}))
            ->capture_default_str();

    // Subcommands other than run and parse live in their own files and run as callbacks
    // during parse; they report their exit code by throwing CLI::RuntimeError(code).
    initbench::add_lava_job_command(app);
    initbench::add_kconfig_command(app);
    initbench::add_pack_command(app);
    // A subcommand inherits the app's footer (run's exit codes); pack's are its own.
    app.get_subcommand("pack")->footer(R"(Exit codes:
  0  image written
  1  failed: unreadable input, a bad experiment file or program, or the image not written
  2  bad command line (a bad --add, --data or --program, or nothing to add))");
    initbench::add_compare_command(app);
    initbench::add_bisect_command(app);
    initbench::add_report_command(app);
    initbench::add_ab_command(app);
    initbench::add_keys_command(app);
    initbench::add_schema_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::RuntimeError& e) { // before ParseError, its base
        return e.get_exit_code();
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : initbench::kExitUsage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "initbench: %s\n", e.what());
        return initbench::kExitUsage;
    }
    if (!*cmd_run && !*cmd_parse)
        return 0; // a callback subcommand finished

    try {
        if (*cmd_parse) {
            auto parsed = initbench::parse_log_file(parse_log_path);
            if (!parsed) {
                std::fprintf(stderr, "initbench parse: %s\n", parsed.error().message().c_str());
                return initbench::kExitUsage;
            }
            initbench::ParsedLog& log = parsed.value();
            initbench::Verdict verdict = initbench::judge(log, std::nullopt);
            return write_outputs(log, verdict, {{"source", parse_log_path}}, initbench::parse_environment(),
                                 out_path, quiet, format);
        }
        // A file that is not a kernel, or not an initramfs, is refused here, before QEMU.
        if (auto s = initbench::check_kernel_file(kernel, boot.arch); !s) {
            std::fprintf(stderr, "initbench: --kernel %s\n", s.error().message().c_str());
            return initbench::kExitUsage;
        }
        auto planned = initbench::plan_boot(boot, params, argv[0]);
        if (!planned) {
            std::fprintf(stderr, "initbench: %s\n", planned.error().message().c_str());
            return initbench::kExitUsage;
        }
        initbench::RunOptions& run = planned.value();
        if (!no_host_check && !initbench::settings_accepted("run", run.boot.image, params, "--no-host-check boots anyway"))
            return initbench::kExitUsage;
        run.boot.kernel = kernel;
        run.log_path = log_path;
        run.echo = progress || ::isatty(2);
        auto kernel_boot = initbench::choose_kernel_boot(kernel, boot.arch, initbench::boot_mode(boot.boot), run.cache_dir);
        if (!kernel_boot) {
            // A kernel that cannot boot as asked (damaged bzImage, no PVH note) fails before QEMU starts.
            std::fprintf(stderr, "initbench: %s\n", kernel_boot.error().message().c_str());
            return initbench::kExitBootFailure;
        }
        run.kernel_boot = std::move(kernel_boot.value());
        initbench::RunResult r = initbench::boot_and_collect(run);
        initbench::Verdict verdict = initbench::judge(r.log, r.child);
        return write_outputs(r.log, verdict, std::move(r.host), std::move(r.environment), out_path, quiet,
                             format);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "initbench: %s\n", e.what());
        return initbench::kExitUsage;
    }
}
