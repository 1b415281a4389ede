// Runs QEMU as a child that never outlives us: its own process group, killed on timeout,
// on SIGINT/SIGTERM/SIGHUP (taken through a signalfd), and by the kernel if we die
// (PR_SET_PDEATHSIG). Its serial console arrives on stdout and is streamed to a callback.
#pragma once

#include "common/result.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

struct ChildRun {
    std::vector<std::string> argv;
    double timeout_s = 600;
    // If > 0: give up when the child wrote nothing on stdout for this long since start
    // (used to detect an accelerator that never starts the guest).
    double first_output_deadline_s = 0;
    // Called with each chunk of stdout; returns true once the output is known to be
    // complete (then the child gets `exit_grace_s` to exit by itself before it is killed).
    std::function<bool(std::string_view)> on_output;
    double exit_grace_s = 30;
};

struct ChildOutcome {
    enum class End { exited, timeout, no_output, interrupted, spawn_failed, lingered } end = End::exited;
    int exit_code = -1;  // when exited normally
    int term_signal = 0; // when killed by a signal, or the signal that interrupted us
    double wall_s = 0;
    double cpu_s = -1;        // the child's CPU time, all its threads (wait4's rusage); -1 if killed
    double first_output_s = -1;
    double complete_s = -1;   // when on_output said complete
    std::string stderr_text;  // the child's stderr (last 8 KiB)
    std::string error;        // spawn failures
};

ChildOutcome run_child(const ChildRun& run);

// In a forked child: replaces it with argv (execvp: a bare name is looked up in PATH), or
// says why on stderr and exits 127, as a shell does.
[[noreturn]] void exec_or_exit(const std::vector<std::string>& argv);

// The host CPUs this process may run on (its affinity, inherited by the children it starts),
// in order; all the hardware has when the affinity cannot be read.
std::vector<unsigned> allowed_host_cpus();

// Restricts this process, and the children it starts from now on, to these host CPUs.
Status pin_to_host_cpus(const std::vector<unsigned>& cpus);

} // namespace initbench
