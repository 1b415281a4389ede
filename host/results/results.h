// The results document that `run` and `parse` write, and the exit code that goes with it.
#pragma once

#include "host/results/logparse.h"
#include "host/base/process.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace initbench {

// Exit codes of `initbench run` and `initbench parse` (also in --help and README.md).
enum ExitCode : int {
    kExitOk = 0,          // complete results, no error records
    kExitErrors = 1,      // complete results that contain error records
    kExitUsage = 2,       // bad command line
    kExitBootFailure = 3, // QEMU did not start, no records, or the kernel panicked
    kExitTimeout = 4,     // the run did not finish in time (host timeout or guest watchdog)
    kExitBadOutput = 5,   // incomplete or corrupt output
    kExitInterrupted = 6, // SIGINT/SIGTERM/SIGHUP, or QEMU killed from outside: partial output kept
};

struct Verdict {
    int exit_code = kExitOk;
    std::string name;   // "ok", "errors", "boot-failure", "timeout", "incomplete", "corrupt", "interrupted"
    std::string reason; // one line for humans
};

// What the log says, and what happened to QEMU if we ran it.
Verdict judge(const ParsedLog& log, const std::optional<ChildOutcome>& child);

// environment: the fingerprint (host/results/environment.h) without the image's build, which is
// taken here from the log's header; null leaves the document without one.
nlohmann::json results_document(const ParsedLog& log, const Verdict& verdict, nlohmann::json host,
                                nlohmann::json environment = nullptr);

// One screen for humans: the header's identity and each phase/probe record in short.
std::string human_summary(const ParsedLog& log, const Verdict& verdict);

// human_summary for "text"; the KTAP or LAVA test cases derived from the records otherwise.
std::string printed_summary(const ParsedLog& log, const Verdict& verdict, const std::string& format);

} // namespace initbench
