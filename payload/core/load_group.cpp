#include "payload/core/load_group.h"

#include "common/text.h"
#include "sys/procfs.h"
#include "sys/child.h"

#include <algorithm>
#include <csignal>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

// When no task of the load has died for this long after SIGKILL, those left are stuck in the
// kernel: report them, go on. A wait for progress, not a fixed time: 15 000 sleeping
// processes on a TCG guest take tens of seconds to die, more on a slow host, and die all
// along.
constexpr double kReapStall = 10;
// Beyond this many processes besides the workers, they are killed a window at a time (see
// kill_in_batches); a load of a few processes is killed at once.
constexpr size_t kBatchFrom = 256;
constexpr size_t kKillWindow = 64;

// Exit statuses of a worker whose set-up failed before the load ran.
constexpr int kExitCgroup = 125;
constexpr int kExitAffinity = 124;
constexpr int kExitNice = 123;

double seconds(const timeval& tv) {
    return double(tv.tv_sec) + double(tv.tv_usec) * 1e-6;
}

std::optional<uint64_t> read_keyed(const std::string& path, std::string_view key) {
    auto text = read_file(path);
    if (!text)
        return std::nullopt;
    return keyed_value(text.value(), key);
}

} // namespace

std::string describe_exit(int status) {
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status));
    const int code = WEXITSTATUS(status);
    std::string s = "exited with status " + std::to_string(code);
    if (code == kExitCgroup)
        s += ": could not join the load's cgroup";
    else if (code == kExitAffinity)
        s += ": could not set the CPU affinity";
    else if (code == kExitNice)
        s += ": could not set the nice level";
    else if (code > 128)
        s += ": one of its tasks was killed by signal " + std::to_string(code - 128);
    return s;
}

static size_t shared_bytes(const LoadParams& params) {
    return sizeof(WorkerSlot) * (1 + std::max(params.workers, 1u)); // the gate gets a line too
}

LoadGroup::LoadGroup(const LoadSpec& spec, const LoadParams& params, const LoadOptions& options,
                     void* shared)
    : spec_(spec), params_(params), options_(options), shared_(shared),
      gate_(new (shared) std::atomic<uint32_t>(0)), slots_(static_cast<WorkerSlot*>(shared) + 1) {
    for (unsigned i = 0; i < std::max(params.workers, 1u); i++)
        new (&slots_[i]) WorkerSlot;
}

Result<std::unique_ptr<LoadGroup>> LoadGroup::start(const LoadSpec& spec, const LoadParams& params,
                                                    const LoadOptions& options) {
    void* shared = ::mmap(nullptr, shared_bytes(params), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return errno_error("mmap load counters");
    std::unique_ptr<LoadGroup> g(new LoadGroup(spec, params, options, shared));
    g->make_cgroup();
    ::getrusage(RUSAGE_CHILDREN, &g->usage_at_start_);
    if (Status s = g->spawn_workers(); !s) {
        g->stop();
        return s.error();
    }
    return g;
}

LoadGroup::~LoadGroup() {
    stop();
    ::munmap(shared_, shared_bytes(params_));
}

void LoadGroup::make_cgroup() {
    const std::string& root = options_.cgroup_root;
    if (root.empty())
        return;
    // One controller at a time: a kernel without one of them still gets the other.
    for (const char* controller : {"+pids", "+memory"})
        (void)write_file(root + "/cgroup.subtree_control", controller); // checked below
    static unsigned serial = 0;
    for (int tries = 0; tries < 1000 && cgroup_path_.empty(); tries++) {
        std::string name = "initbench-load-" + std::to_string(++serial);
        std::string path = root + "/" + name;
        if (::mkdir(path.c_str(), 0755) == 0) {
            cgroup_name_ = "/" + name;
            cgroup_path_ = path;
        } else if (errno != EEXIST) {
            notes_.push_back("no cgroup, so no task or memory limit: " +
                             errno_error("mkdir " + path).message());
            return;
        }
    }
    if (cgroup_path_.empty()) {
        notes_.push_back("no cgroup, so no task or memory limit: no free name under " + root);
        return;
    }
    auto limit = [&](const char* file, uint64_t value, const char* what) {
        if (!value)
            return;
        if (Status s = write_file(cgroup_path_ + "/" + file, std::to_string(value)); !s)
            notes_.push_back(std::string(what) + " not set: " + s.error().message());
    };
    limit("pids.max", options_.tasks_max, "task limit");
    limit("memory.max", options_.memory_max, "memory limit");
}

// The workers wait at a gate until all are forked: running ones would otherwise slow the
// init's forking of the rest (128 spinners on one CPU took 19 s to start).
Status LoadGroup::spawn_workers() {
    pgid_ = 0;
    pids_.clear();
    alive_.clear();
    statuses_.clear();
    ended_at_.clear();
    gate_->store(0, std::memory_order_relaxed);
    for (unsigned i = 0; i < params_.workers; i++) {
        pid_t pid = ::fork();
        if (pid < 0) {
            open_gate(*gate_); // those forked can leave through stop()'s kill either way
            return errno_error("fork worker " + std::to_string(i) + " of load " +
                               std::string(spec_.name()));
        }
        if (pid == 0)
            run_worker(i);
        if (pgid_ == 0)
            pgid_ = pid;
        ::setpgid(pid, pgid_); // also from the parent: no race with the first kill
        pids_.push_back(pid);
        alive_.push_back(true);
        statuses_.push_back(0);
        ended_at_.push_back(-1);
    }
    open_gate(*gate_);
    return ok();
}

void LoadGroup::run_worker(unsigned index) {
    enter_child({.pgid = pgid_, .die_with_parent = true});
    // "ib-LOAD": every task of the load inherits it, so probes can tell the load's tasks.
    const std::string comm = "ib-" + std::string(spec_.name());
    ::prctl(PR_SET_NAME, comm.c_str());
    // Joined before the load runs, so that every task it makes is counted and limited.
    if (!cgroup_path_.empty() && !write_file(cgroup_path_ + "/cgroup.procs", "0"))
        ::_exit(kExitCgroup);
    if (!options_.cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (unsigned cpu : options_.cpus)
            CPU_SET(cpu, &set);
        if (::sched_setaffinity(0, sizeof set, &set) != 0)
            ::_exit(kExitAffinity);
    }
    if (options_.nice != 0 && ::setpriority(PRIO_PROCESS, 0, options_.nice) != 0)
        ::_exit(kExitNice);
    wait_for_gate(*gate_);
    WorkerContext ctx{index, &params_, &slots_[index]};
    spec_.work(ctx);
    ::_exit(0);
}

bool LoadGroup::wait_ready(double deadline, std::vector<WorkerExit>& exits) {
    for (;;) {
        for (const auto& e : collect_early_exits())
            exits.push_back(e);
        bool all = true;
        for (size_t i = 0; i < pids_.size(); i++)
            if (alive_[i] && !slots_[i].ready.load(std::memory_order_acquire))
                all = false;
        if (all)
            return true;
        if (monotonic_seconds() >= deadline)
            return false;
        ::usleep(2000);
    }
}

Status LoadGroup::respawn() {
    kill_and_reap();
    respawns_++;
    for (unsigned i = 0; i < params_.workers; i++)
        slots_[i].ready.store(0, std::memory_order_relaxed);
    return spawn_workers();
}

uint64_t LoadGroup::total_ops() const {
    uint64_t sum = 0;
    for (uint64_t v : ops_per_worker())
        sum += v;
    return sum;
}

std::vector<uint64_t> LoadGroup::ops_per_worker() const {
    std::vector<uint64_t> out;
    for (unsigned i = 0; i < params_.workers; i++)
        out.push_back(slots_[i].ops.load(std::memory_order_relaxed));
    return out;
}

std::vector<WorkerMark> LoadGroup::marks() const {
    std::vector<WorkerMark> out;
    for (unsigned i = 0; i < params_.workers; i++)
        out.push_back({.ops = slots_[i].ops.load(std::memory_order_relaxed),
                       .last_op_ns = slots_[i].last_op_ns.load(std::memory_order_relaxed)});
    return out;
}

std::vector<double> op_spans(const std::vector<WorkerMark>& open, const std::vector<WorkerMark>& close,
                             double window_s) {
    std::vector<double> spans;
    for (size_t i = 0; i < std::min(open.size(), close.size()); i++) {
        const bool timed = close[i].ops > open[i].ops && open[i].last_op_ns &&
                           close[i].last_op_ns > open[i].last_op_ns;
        spans.push_back(timed ? double(close[i].last_op_ns - open[i].last_op_ns) * 1e-9 : window_s);
    }
    return spans;
}

double ops_per_second(const std::vector<WorkerMark>& open, const std::vector<WorkerMark>& close,
                      double window_s) {
    const std::vector<double> spans = op_spans(open, close, window_s);
    double rate = 0;
    for (size_t i = 0; i < spans.size(); i++)
        rate += double(close[i].ops - open[i].ops) / spans[i];
    return rate;
}

uint64_t LoadGroup::failures() const {
    uint64_t sum = 0;
    for (unsigned i = 0; i < params_.workers; i++)
        sum += slots_[i].failures.load(std::memory_order_relaxed);
    return sum;
}

std::vector<WorkerExit> LoadGroup::collect_early_exits() {
    std::vector<WorkerExit> out;
    for (size_t i = 0; i < pids_.size(); i++) {
        if (!alive_[i])
            continue;
        int status = 0;
        if (::waitpid(pids_[i], &status, WNOHANG) == pids_[i]) {
            reaped_++;
            alive_[i] = false;
            statuses_[i] = status;
            ended_at_[i] = monotonic_seconds();
            out.push_back({pids_[i], status});
        }
    }
    return out;
}

bool LoadGroup::wait_exit(double deadline) {
    for (;;) {
        collect_early_exits();
        if (ended())
            return true;
        if (monotonic_seconds() >= deadline)
            return false;
        ::usleep(2000);
    }
}

std::optional<double> LoadGroup::ended_at(size_t index) const {
    if (index >= pids_.size() || alive_[index] || ended_at_[index] < 0)
        return std::nullopt;
    return ended_at_[index];
}

bool LoadGroup::ended() const {
    return std::none_of(alive_.begin(), alive_.end(), [](bool a) { return a; });
}

std::optional<int> LoadGroup::exit_status(size_t index) const {
    if (index >= pids_.size() || alive_[index])
        return std::nullopt;
    return statuses_[index];
}

Status LoadGroup::adopt(pid_t pid) {
    if (cgroup_path_.empty())
        return ok();
    return write_file(cgroup_path_ + "/cgroup.procs", std::to_string(pid));
}

std::optional<CpuTime> LoadGroup::cgroup_cpu() const {
    if (cgroup_path_.empty())
        return std::nullopt;
    auto text = read_file(cgroup_path_ + "/cpu.stat");
    if (!text)
        return std::nullopt;
    auto user = keyed_value(text.value(), "user_usec");
    auto sys = keyed_value(text.value(), "system_usec");
    if (!user || !sys)
        return std::nullopt;
    return CpuTime{double(*user) * 1e-6, double(*sys) * 1e-6};
}

std::optional<uint64_t> LoadGroup::cgroup_value(std::string_view file) const {
    if (cgroup_path_.empty())
        return std::nullopt;
    return read_uint(cgroup_path_ + "/" + std::string(file));
}

std::optional<uint64_t> LoadGroup::cgroup_event(std::string_view file, std::string_view key) const {
    if (cgroup_path_.empty())
        return std::nullopt;
    return read_keyed(cgroup_path_ + "/" + std::string(file), key);
}

// Thousands of processes killed at once all exit at once, and their exits queue on one lock:
// forked from one worker, they share its anon_vma tree, whose root rwsem each exit's
// unlink_anon_vmas takes. With 15 000 sleepers on an 8-vCPU TCG guest, 13 s after the kill
// 10 751 were in D there and 4 230 runnable (the holder among them, waiting its turn behind
// the others), the RCU grace-period kthread starved, and not one was reaped. So the workers
// are stopped first (a worker that sees one of its tasks die ends, and PR_SET_PDEATHSIG would
// then kill the rest of its tasks at once), and the other processes are killed with at most
// kKillWindow of them dying at a time. Their zombies wait for the workers' end below.
void LoadGroup::kill_in_batches() {
    if (cgroup_path_.empty())
        return;
    auto procs = read_file(cgroup_path_ + "/cgroup.procs");
    if (!procs)
        return;
    std::vector<pid_t> others;
    for (std::string_view word : split_words(procs.value()))
        if (auto pid = parse_integer<pid_t>(word))
            if (std::find(pids_.begin(), pids_.end(), *pid) == pids_.end())
                others.push_back(*pid);
    if (others.size() < kBatchFrom)
        return;
    for (size_t i = 0; i < pids_.size(); i++)
        if (alive_[i])
            ::kill(pids_[i], SIGSTOP);
    double last_progress = monotonic_seconds();
    for (size_t i = 0; i < pids_.size();) {
        int status = 0;
        const pid_t got = alive_[i] ? ::waitpid(pids_[i], &status, WNOHANG | WUNTRACED) : 0;
        if (got == pids_[i] && !WIFSTOPPED(status)) { // it ended on its own meanwhile
            reaped_++;
            alive_[i] = false;
            statuses_[i] = status;
        }
        if (!alive_[i] || got == pids_[i]) {
            i++;
            continue;
        }
        if (monotonic_seconds() - last_progress >= kReapStall)
            return; // a worker that does not stop: kill them all at once, as below
        ::usleep(1000);
    }
    std::vector<pid_t> dying;
    size_t next = 0;
    last_progress = monotonic_seconds();
    while (next < others.size() || !dying.empty()) {
        while (dying.size() < kKillWindow && next < others.size()) {
            if (::kill(others[next], SIGKILL) == 0)
                dying.push_back(others[next]);
            next++;
        }
        // A zombie has left its mm and its cgroup; the stopped workers keep it unreaped, so its
        // PID is not reused meanwhile.
        const size_t before = dying.size();
        std::erase_if(dying, [](pid_t pid) {
            auto st = read_proc_stat(pid);
            return !st || st->state == 'Z' || st->state == 'X';
        });
        const double now = monotonic_seconds();
        if (dying.size() != before)
            last_progress = now;
        else if (now - last_progress >= kReapStall)
            return; // stuck in the kernel: the loop below reports what is left
        ::usleep(1000);
    }
}

void LoadGroup::kill_and_reap() {
    kill_in_batches();
    auto kill_all = [this] {
        if (!cgroup_path_.empty()) // atomic against forks in flight; absent before Linux 5.14
            (void)write_file(cgroup_path_ + "/cgroup.kill", "1");
        if (pgid_ > 0)
            ::kill(-pgid_, SIGKILL);
        for (size_t i = 0; i < pids_.size(); i++)
            if (alive_[i])
                ::kill(pids_[i], SIGKILL); // a worker that left the group is still ours
    };
    kill_all();
    unsigned reaped_before = reaped_;
    double last_progress = monotonic_seconds();
    for (double next_kill = last_progress + 0.1;;) {
        // Orphans of the workers are the init's children now, still in the workers' group.
        int status;
        pid_t pid = 0;
        while (pgid_ > 0 && (pid = ::waitpid(-pgid_, &status, WNOHANG)) > 0) {
            reaped_++;
            auto it = std::find(pids_.begin(), pids_.end(), pid);
            if (it != pids_.end()) {
                alive_[size_t(it - pids_.begin())] = false;
                statuses_[size_t(it - pids_.begin())] = status;
            }
        }
        const bool group_gone = pgid_ == 0 || (pid < 0 && errno == ECHILD);
        collect_early_exits();
        const bool workers_gone =
            std::none_of(alive_.begin(), alive_.end(), [](bool a) { return a; });
        if (group_gone && workers_gone)
            break;
        const double now = monotonic_seconds();
        if (reaped_ != reaped_before) {
            reaped_before = reaped_;
            last_progress = now;
        } else if (now - last_progress >= kReapStall) {
            break;
        }
        if (now >= next_kill) { // a task may have been between fork and joining the group
            kill_all();
            next_kill = now + 0.1;
        }
        ::usleep(1000);
    }
}

StopReport LoadGroup::stop() {
    if (stopped_)
        return report_;
    stopped_ = true;
    const double t0 = monotonic_seconds();
    kill_and_reap();
    // Every task reaped since start(): workers that ended early or by themselves (an
    // external program), those of earlier respawns, and orphans of the workers.
    report_.reaped = reaped_;
    rusage after{};
    ::getrusage(RUSAGE_CHILDREN, &after);
    // RUSAGE_CHILDREN counts reaped tasks only: the delta since start() is this group's.
    report_.cpu = {seconds(after.ru_utime) - seconds(usage_at_start_.ru_utime),
                   seconds(after.ru_stime) - seconds(usage_at_start_.ru_stime)};
    report_.left = static_cast<unsigned>(std::count(alive_.begin(), alive_.end(), true));
    if (!cgroup_path_.empty()) {
        if (auto procs = read_file(cgroup_path_ + "/cgroup.procs"))
            report_.left = static_cast<unsigned>(split_words(procs.value()).size());
        if (::rmdir(cgroup_path_.c_str()) != 0)
            notes_.push_back(errno_error("rmdir " + cgroup_path_).message());
    }
    report_.seconds = monotonic_seconds() - t0;
    return report_;
}

} // namespace initbench
