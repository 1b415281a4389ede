// The one way a command boots: start a boot, learn when one has ended, take its outcome.
// `run` and `bisect-step` boot in this process, one at a time; `ab` boots in children of
// this process, several at once, each on host CPUs of its own. A lab's engine (LAVA's REST
// API submitting the job `lava-job` writes, and the log `parse` reads) stands in behind the
// same calls, and the drivers' tests put a fake there.
#pragma once

#include "common/result.h"
#include "host/boot/boot.h"
#include "host/boot/boot_once.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

// One boot: planned (host/engine/boot_plan.h, its kernel_boot chosen), and where its
// results document goes (run.log_path takes the console).
struct BootRequest {
    RunOptions run;
    std::string out_path;            // "": not written (the outcome is in BootEnded)
    std::vector<unsigned> host_cpus; // the host CPUs the boot runs on (sched_setaffinity); none: any
};

struct BootEnded {
    size_t id = 0;      // as start() returned it
    int exit_code = -1; // the verdict's (results.h ExitCode); -1 when it could not say
    std::string error;  // why it ended without a results document, "" otherwise
    // The boot itself, when it ran in this process; else its document is at out_path.
    std::shared_ptr<const BootOutcome> outcome;
};

class BootBackend {
public:
    virtual ~BootBackend() = default;
    // Starts a boot; returns its id.
    virtual Result<size_t> start(const BootRequest& request) = 0;
    // Waits for a started boot to end; none when nothing is running, or when interrupted
    // (SIGINT/SIGTERM/SIGHUP: interrupted() then says so, and the running boots are stopped).
    virtual std::optional<BootEnded> wait_any() = 0;
    virtual size_t running() const = 0;
    virtual bool interrupted() const = 0;
};

// Boots in this process, one at a time: start() boots and keeps the outcome for wait_any().
// A signal while QEMU runs stops it (the outcome is then "interrupted").
std::unique_ptr<BootBackend> in_process_boot_backend();

// Boots in child processes of this one, as many at once as are started. Installs handlers
// for SIGINT, SIGTERM and SIGHUP for its lifetime: a signal stops starting boots, is passed
// on to the running ones (each stops QEMU and keeps its partial output), and makes
// interrupted() true. Each child writes the document to out_path and why it failed to
// run.log_path + ".stderr".
std::unique_ptr<BootBackend> child_boot_backend();

// The outcome's results document into `path`; an error names the file and why.
Status write_document(const std::string& path, const BootOutcome& outcome);

} // namespace initbench
