// Registers `initbench report`: one self-contained HTML page for a run or a comparison.
#pragma once

namespace CLI {
class App;
}

namespace initbench {

// Exit codes of `initbench report` (also in its --help).
enum ReportExit : int {
    kReportOk = 0,      // written; every file usable
    kReportUsage = 2,   // bad command line, or a SIDE that names no file
    kReportRefused = 3, // written, but a file or the comparison was refused (shown in the page)
    kReportWrite = 4,   // the page could not be written
};

// Runs as a callback during parsing and reports a nonzero exit code by throwing
// CLI::RuntimeError(code), as compare does.
void add_report_command(CLI::App& app);

} // namespace initbench
