// libbpf explains its failures only through its print callback. Init installs a callback
// that keeps the last warning instead of writing to the console (which would break the
// record lines), so a probe can put libbpf's own words into its "unsupported" reason.
#pragma once

#include "bpf/core/setup_times.h"

#include <cerrno>
#include <string>

namespace initbench {

void install_libbpf_logger();

// While alive, captures libbpf's warnings on this thread.
class LibbpfLogCapture {
public:
    LibbpfLogCapture();
    ~LibbpfLogCapture();
    LibbpfLogCapture(const LibbpfLogCapture&) = delete;
    LibbpfLogCapture& operator=(const LibbpfLogCapture&) = delete;
    // The last warning libbpf printed, or `fallback` when it printed none.
    std::string last_or(const std::string& fallback) const;
    // A failed set-up step as the probe's reason, "STEP: libbpf's last warning" (else the
    // errno's text); returns false for the caller to return.
    bool failed(std::string& why, const std::string& step, int err) const;
    // An fentry attach that failed, with its errno: the one figure that tells a kernel
    // without fentry on this architecture (524) from a refused function.
    bool attach_failed(std::string& why, int err) const;
};

// A probe's skeleton (a Skeleton<X_bpf, ...>) from its X_bpf__open, timed as the set-up step
// "open"; null, with `why` in libbpf's words, when libbpf refuses.
template <typename Skel>
Skel open_skeleton(typename Skel::pointer (*open)(), const LibbpfLogCapture& log,
                   std::string& why) {
    SetupStep step("open");
    Skel skel(open());
    if (!skel)
        log.failed(why, "open", errno);
    return skel;
}

} // namespace initbench
