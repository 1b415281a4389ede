#include "init/load_group.h"

#include <csignal>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {

LoadGroup::LoadGroup(const LoadSpec& spec, std::atomic<uint64_t>* counters, size_t n)
    : spec_(spec), counters_(counters), slots_(n) {}

Result<std::unique_ptr<LoadGroup>> LoadGroup::start(const LoadSpec& spec, unsigned workers) {
    // One cache line per counter: workers must not contend on each other's counts.
    constexpr size_t kStride = 64 / sizeof(std::atomic<uint64_t>);
    size_t bytes = std::max<size_t>(workers, 1) * kStride * sizeof(std::atomic<uint64_t>);
    void* mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return errno_error("mmap load counters");
    auto* counters = static_cast<std::atomic<uint64_t>*>(mem);
    std::unique_ptr<LoadGroup> g(new LoadGroup(spec, counters, std::max<size_t>(workers, 1) * kStride));
    ::getrusage(RUSAGE_CHILDREN, &g->usage_at_start_);

    for (unsigned i = 0; i < workers; i++) {
        pid_t pid = ::fork();
        if (pid < 0) {
            Error e = errno_error("fork worker " + std::to_string(i) + " of load " + std::string(spec.name));
            g->stop();
            return e;
        }
        if (pid == 0) {
            sigset_t none;
            sigemptyset(&none);
            ::sigprocmask(SIG_SETMASK, &none, nullptr); // init blocks everything; workers must not
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            ::setpgid(0, g->pgid_);
            WorkerContext ctx{i, workers, &counters[i * kStride]};
            spec.work(ctx);
            ::_exit(0);
        }
        if (g->pgid_ == 0)
            g->pgid_ = pid;
        ::setpgid(pid, g->pgid_); // also from the parent: no race with the first kill
        g->pids_.push_back(pid);
        g->alive_.push_back(true);
    }
    return g;
}

LoadGroup::~LoadGroup() {
    stop();
    ::munmap(counters_, slots_ * sizeof(std::atomic<uint64_t>));
}

uint64_t LoadGroup::total_ops() const {
    uint64_t sum = 0;
    for (uint64_t v : ops_per_worker())
        sum += v;
    return sum;
}

std::vector<uint64_t> LoadGroup::ops_per_worker() const {
    constexpr size_t kStride = 64 / sizeof(std::atomic<uint64_t>);
    std::vector<uint64_t> out;
    for (size_t i = 0; i < pids_.size(); i++)
        out.push_back(counters_[i * kStride].load(std::memory_order_relaxed));
    return out;
}

std::vector<WorkerExit> LoadGroup::collect_early_exits() {
    std::vector<WorkerExit> out;
    for (size_t i = 0; i < pids_.size(); i++) {
        if (!alive_[i])
            continue;
        int status = 0;
        if (::waitpid(pids_[i], &status, WNOHANG) == pids_[i]) {
            alive_[i] = false;
            out.push_back({pids_[i], status});
        }
    }
    return out;
}

unsigned reap_all_children() {
    unsigned n = 0;
    int status;
    while (::waitpid(-1, &status, 0) > 0 || errno == EINTR)
        n++;
    return n;
}

static double seconds(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) * 1e-6; }

nlohmann::json LoadGroup::stop() {
    if (stopped_)
        return nullptr;
    stopped_ = true;
    if (pgid_ > 0)
        ::kill(-pgid_, SIGKILL);
    for (pid_t pid : pids_)
        ::kill(pid, SIGKILL); // a worker that left the group is still ours
    unsigned reaped = reap_all_children();
    rusage after{};
    ::getrusage(RUSAGE_CHILDREN, &after);
    // RUSAGE_CHILDREN counts reaped tasks only: the delta since start() is this group's.
    return {{"user_s", seconds(after.ru_utime) - seconds(usage_at_start_.ru_utime)},
            {"sys_s", seconds(after.ru_stime) - seconds(usage_at_start_.ru_stime)},
            {"tasks_reaped", reaped}};
}

} // namespace initbench
