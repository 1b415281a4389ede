// initbench: the host CLI. Each subcommand lives in host/cli/ (run and parse in run_cli) and
// runs as a callback while the command line is parsed, reporting its exit code by throwing
// CLI::RuntimeError(code).
#include "host/cli/ab.h"
#include "host/cli/bisect.h"
#include "host/cli/compare_cli.h"
#include "host/cli/keys_cli.h"
#include "host/cli/report_cli.h"
#include "host/cli/run_cli.h"
#include "host/cli/schema_cli.h"
#include "host/image/pack.h"
#include "host/lab/kconfig.h"
#include "host/lab/lava_job.h"
#include "host/results/results.h"

#include <CLI/CLI.hpp>
#include <cstdio>

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

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"initbench: boot a kernel with a performance experiment and collect its results"};
    app.footer(kExitCodes);
    app.require_subcommand(1);

    initbench::add_run_command(app, argv[0]);
    initbench::add_parse_command(app);
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
    return 0;
}
