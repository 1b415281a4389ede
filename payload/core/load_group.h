// Runs one load's workers for a phase: forks them into their own process group and, in the
// guest, their own cgroup with a task and a memory limit; pins them; exposes their
// counters; respawns them on request (churn); and on stop() kills the whole group and
// reaps every task, so that nothing of this phase survives into the next.
#pragma once

#include "sys/sys.h"
#include "payload/core/load.h"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <sys/types.h>
#include <vector>

namespace initbench {

struct LoadOptions {
    std::string cgroup_root;    // where cgroup2 is mounted; "" runs without a cgroup or limits
    uint64_t tasks_max = 0;     // pids.max; 0: none
    uint64_t memory_max = 0;    // memory.max in bytes; 0: none
    std::vector<unsigned> cpus; // CPU affinity of every task; empty: any CPU
    int nice = 0;
};

struct CpuTime {
    double user_s = 0;
    double sys_s = 0;
};

struct StopReport {
    CpuTime cpu;         // getrusage: every reaped task of the group, from start to stop
    unsigned reaped = 0; // tasks the framework reaped since start: workers (those that ended by
                         // themselves too, and earlier respawns'), and orphans of the workers
    unsigned left = 0;   // tasks still in the cgroup when the framework gave up waiting
    double seconds = 0;  // how long killing and reaping took
};

struct WorkerExit {
    pid_t pid;
    int status; // as from waitpid
};

// One worker's counters as read at a window's edge.
struct WorkerMark {
    uint64_t ops = 0;
    uint64_t last_op_ns = 0; // 0: the worker has not started
};

// The time each worker's operations in a window took: from its last completion before the
// window opened to its last before it closed. An operation the window cut at either end then
// does not move the rate (under --clock icount, one fork in 179 did, in one boot in ten). A
// worker without a mark at the open, or with no completion inside, gets `window_s`. A
// completion between the reads of a worker's two counters can make one operation too many or
// too few, as the window's edge did before.
std::vector<double> op_spans(const std::vector<WorkerMark>& open, const std::vector<WorkerMark>& close,
                             double window_s);
// Operations per second over a window: each worker's operations over its span, summed.
double ops_per_second(const std::vector<WorkerMark>& open, const std::vector<WorkerMark>& close,
                      double window_s);

class LoadGroup {
public:
    static Result<std::unique_ptr<LoadGroup>> start(const LoadSpec& spec, const LoadParams& params,
                                                    const LoadOptions& options);
    ~LoadGroup();
    LoadGroup(const LoadGroup&) = delete;
    LoadGroup& operator=(const LoadGroup&) = delete;

    const LoadSpec& spec() const { return spec_; }
    const LoadParams& params() const { return params_; }
    const std::vector<pid_t>& worker_pids() const { return pids_; }

    // Waits until every live worker has called ready(), or until `deadline` (monotonic
    // seconds). Workers that die meanwhile are added to `exits`.
    bool wait_ready(double deadline, std::vector<WorkerExit>& exits);
    // Churn: kills and reaps every task, then forks the workers again. Counters go on.
    Status respawn();
    unsigned respawns() const { return respawns_; }

    uint64_t total_ops() const;
    std::vector<uint64_t> ops_per_worker() const;
    std::vector<WorkerMark> marks() const;
    uint64_t failures() const; // task creations the kernel refused, all workers
    // Workers that died on their own while the phase ran (OOM kill, crash): collected
    // without blocking; the phase records them.
    std::vector<WorkerExit> collect_early_exits();
    // Waits until every worker has ended (an external load's program ends by itself), or
    // until `deadline`; true when all have.
    bool wait_exit(double deadline);
    // How worker `index` ended (as from waitpid), once it has been reaped.
    std::optional<int> exit_status(size_t index) const;
    // When worker `index` ended on its own (monotonic seconds: when collect_early_exits or
    // wait_exit reaped it, which the runner does on its SIGCHLD); none while it runs or once
    // stop() ended it.
    std::optional<double> ended_at(size_t index) const;
    // Every worker has ended (an external load's program has exited).
    bool ended() const;
    // Moves a task started before the load (its setup) into the load's cgroup, so that what
    // it does from now on is counted and limited with the load. Nothing without a cgroup.
    Status adopt(pid_t pid);

    // The cgroup's path under the root ("" without one), and the limits that could not be
    // set, each with the reason.
    const std::string& cgroup() const { return cgroup_name_; }
    const std::vector<std::string>& notes() const { return notes_; }
    // The kernel's accounting of the cgroup; nothing without one.
    std::optional<CpuTime> cgroup_cpu() const;
    std::optional<uint64_t> cgroup_tasks() const { return cgroup_value("pids.current"); }
    // A file of the cgroup that holds one number, e.g. "memory.peak".
    std::optional<uint64_t> cgroup_value(std::string_view file) const;
    // One counter of an events file, e.g. ("pids.events", "max").
    std::optional<uint64_t> cgroup_event(std::string_view file, std::string_view key) const;

    // Kills the group, reaps every task, removes the cgroup. Only the first call acts.
    StopReport stop();

private:
    LoadGroup(const LoadSpec& spec, const LoadParams& params, const LoadOptions& options,
              void* shared);
    void make_cgroup();
    Status spawn_workers();
    // Kills every task and reaps until none is left or the deadline passes.
    // SIGKILL to every task of the load, then reaping until they are gone, or until none
    // has died for a while (the rest are stuck in the kernel).
    void kill_and_reap();
    void kill_in_batches();
    [[noreturn]] void run_worker(unsigned index);

    const LoadSpec& spec_;
    const LoadParams params_;
    const LoadOptions options_;
    void* shared_;                // the gate, then one slot per worker
    std::atomic<uint32_t>* gate_; // workers wait here until every one of them is forked
    WorkerSlot* slots_;
    std::vector<pid_t> pids_;
    std::vector<bool> alive_;
    std::vector<int> statuses_; // of the workers that ended, as from waitpid
    std::vector<double> ended_at_; // monotonic seconds each was reaped at while it ran on its own
    pid_t pgid_ = 0;
    std::string cgroup_name_, cgroup_path_;
    std::vector<std::string> notes_;
    struct rusage usage_at_start_ {};
    unsigned respawns_ = 0;
    unsigned reaped_ = 0; // every waitpid that returned one of ours
    bool stopped_ = false;
    StopReport report_;
};

// How a worker ended, for a record: "killed by signal 9", "exited with status 1".
std::string describe_exit(int status);

} // namespace initbench
