// initbench: the host CLI. Each subcommand lives in host/cli/ (run and parse in run_cli) and
// runs as a callback while the command line is parsed, reporting its exit code by throwing
// CLI::RuntimeError(code).
#include "host/cli/ab_cli.h"
#include "host/cli/bisect.h"
#include "host/cli/bisect_run.h"
#include "host/cli/compare_cli.h"
#include "host/cli/export_cli.h"
#include "host/cli/keys_cli.h"
#include "host/cli/kconfig_cli.h"
#include "host/cli/lava_job_cli.h"
#include "host/cli/pack_cli.h"
#include "host/cli/report_cli.h"
#include "host/cli/run_cli.h"
#include "host/cli/schema_cli.h"
#include "host/results/results.h"

#include <CLI/CLI.hpp>
#include <cstdio>

int main(int argc, char** argv) {
    CLI::App app{"initbench: boot a kernel with a performance experiment and collect its results"};
    app.require_subcommand(1);

    initbench::add_run_command(app, argv[0]);
    initbench::add_parse_command(app);
    initbench::add_lava_job_command(app);
    initbench::add_kconfig_command(app);
    initbench::add_pack_command(app);
    initbench::add_compare_command(app);
    initbench::add_export_command(app);
    initbench::add_bisect_command(app);
    initbench::add_bisect_run_command(app);
    initbench::add_report_command(app);
    initbench::add_ab_command(app);
    initbench::add_keys_command(app);
    initbench::add_schema_command(app);
    // Set after the subcommands, which would inherit it: each has its own.
    app.footer("Each subcommand's --help says what its exit codes mean.");
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
