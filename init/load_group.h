// Runs one load's workers for a phase: forks them into their own process group, exposes
// their operation counters, and on stop() kills the whole group and reaps every task so
// that nothing of this phase survives into the next.
#pragma once

#include "init/sys.h"
#include "payload/load.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/types.h>
#include <vector>

namespace initbench {

struct WorkerExit {
    pid_t pid;
    int status; // as from waitpid
};

class LoadGroup {
public:
    static Result<std::unique_ptr<LoadGroup>> start(const LoadSpec& spec, unsigned workers);
    ~LoadGroup();
    LoadGroup(const LoadGroup&) = delete;
    LoadGroup& operator=(const LoadGroup&) = delete;

    const LoadSpec& spec() const { return spec_; }
    unsigned workers() const { return static_cast<unsigned>(pids_.size()); }
    uint64_t total_ops() const;
    std::vector<uint64_t> ops_per_worker() const;
    // Workers that died on their own while the phase ran (OOM kill, crash): collected
    // without blocking; the phase records them.
    std::vector<WorkerExit> collect_early_exits();
    // Kills the group, reaps every task; returns the CPU time the group used.
    nlohmann::json stop();

private:
    LoadGroup(const LoadSpec& spec, std::atomic<uint64_t>* counters, size_t n);

    const LoadSpec& spec_;
    std::atomic<uint64_t>* counters_;
    size_t slots_;
    std::vector<pid_t> pids_;
    std::vector<bool> alive_;
    pid_t pgid_ = 0;
    struct rusage usage_at_start_ {};
    bool stopped_ = false;
};

// Reaps every remaining child of PID 1 (orphans included) until none is left.
unsigned reap_all_children();

} // namespace initbench
