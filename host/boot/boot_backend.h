// The seam between a command that needs many boots (`initbench ab`) and whatever performs
// them: start a boot, learn when one has ended, read the results document it left. The local
// backend runs `initbench run` children on this host, several at once; a lab's engine (LAVA's
// REST API submitting the job `lava-job` writes and returning the log `parse` reads) can stand
// in behind the same three calls.
#pragma once

#include "common/result.h"
#include "host/boot/boot_options.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

// One boot: what to boot, and where its results document and console log go.
struct BootRequest {
    std::string kernel;
    std::vector<std::string> params; // kernel parameters
    BootOptions options;
    std::string out_path, log_path; // the results document and the raw console
    std::vector<unsigned> host_cpus; // the host CPUs the boot runs on (sched_setaffinity); none: any
};

struct BootEnded {
    size_t id = 0;      // as start() returned it
    int exit_code = -1; // initbench run's (results.h); -1 when it could not say
    std::string error;  // why it ended without a results document, "" otherwise
};

class BootBackend {
public:
    virtual ~BootBackend() = default;
    // Starts a boot; returns its id. Never blocks for the boot itself.
    virtual Result<size_t> start(const BootRequest& request) = 0;
    // Waits for a started boot to end; none when nothing is running, or when interrupted
    // (SIGINT/SIGTERM/SIGHUP: interrupted() then says so, and the running boots are stopped).
    virtual std::optional<BootEnded> wait_any() = 0;
    virtual size_t running() const = 0;
    virtual bool interrupted() const = 0;
};

// Boots with `cli` (this initbench binary) run ... --out --log --quiet, as child processes.
// Installs handlers for SIGINT, SIGTERM and SIGHUP for its lifetime: a signal stops starting
// boots, is passed on to the running ones (each stops QEMU and keeps its partial output), and
// makes interrupted() true.
std::unique_ptr<BootBackend> local_boot_backend(std::string cli);

} // namespace initbench
