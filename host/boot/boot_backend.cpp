// The local boot backend: `initbench run` children, waited for with waitpid.
#include "host/boot/boot_backend.h"

#include "host/base/process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <cstdio>
#include <map>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

volatile sig_atomic_t g_signal = 0;

void on_signal(int sig) { g_signal = sig; }

std::vector<std::string> run_argv(const std::string& cli, const BootRequest& r) {
    std::vector<std::string> argv = {cli, "run", "--kernel", r.kernel};
    for (auto& word : run_arguments(r.options))
        argv.push_back(std::move(word));
    argv.insert(argv.end(), {"--out", r.out_path, "--log", r.log_path, "--quiet", "--"});
    argv.insert(argv.end(), r.params.begin(), r.params.end());
    return argv;
}

class LocalBackend final : public BootBackend {
public:
    explicit LocalBackend(std::string cli) : cli_(std::move(cli)) {
        g_signal = 0;
        struct sigaction sa {};
        sa.sa_handler = on_signal; // no SA_RESTART: waitpid returns EINTR
        sigemptyset(&sa.sa_mask);
        for (int sig : {SIGINT, SIGTERM, SIGHUP})
            ::sigaction(sig, &sa, &old_[sig]);
    }
    ~LocalBackend() override {
        stop_all(SIGTERM);
        while (!children_.empty())
            reap(0);
        for (auto& [sig, old] : old_)
            ::sigaction(sig, &old, nullptr);
    }

    Result<size_t> start(const BootRequest& request) override {
        if (g_signal)
            return Error{"interrupted"};
        const auto argv = run_argv(cli_, request);
        // The child's own messages (run --quiet says why a run failed) go next to its log.
        const std::string errors = request.log_path + ".stderr";
        int err = ::open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (err < 0)
            return Error{"cannot write " + errors + ": " + std::strerror(errno)};
        pid_t pid = ::fork();
        if (pid < 0) {
            ::close(err);
            return Error{std::string("fork: ") + std::strerror(errno)};
        }
        if (pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM); // never outlive ab
            ::dup2(err, 1);
            ::dup2(err, 2);
            if (!request.host_cpus.empty()) // inherited by QEMU and its threads
                if (auto pinned = pin_to_host_cpus(request.host_cpus); !pinned)
                    std::fprintf(stderr, "initbench ab: cannot pin the boot to its host CPUs: %s\n",
                                 pinned.error().message().c_str());
            exec_or_exit(argv);
        }
        ::close(err);
        children_[pid] = next_id_;
        return next_id_++;
    }

    std::optional<BootEnded> wait_any() override {
        while (!children_.empty()) {
            if (g_signal && !forwarded_) {
                // A terminal's Ctrl-C reaches the children too; a kill of ab alone does not.
                stop_all(g_signal);
                forwarded_ = true;
            }
            if (auto ended = reap(0))
                return ended;
        }
        return std::nullopt;
    }

    size_t running() const override { return children_.size(); }
    bool interrupted() const override { return g_signal != 0; }

private:
    void stop_all(int sig) {
        for (const auto& [pid, id] : children_)
            ::kill(pid, sig);
    }

    // One ended child, or none when waitpid was interrupted by a signal.
    std::optional<BootEnded> reap(int flags) {
        int status = 0;
        pid_t pid = ::waitpid(-1, &status, flags);
        if (pid <= 0) {
            if (pid < 0 && errno == ECHILD)
                children_.clear();
            return std::nullopt;
        }
        auto it = children_.find(pid);
        if (it == children_.end())
            return std::nullopt;
        BootEnded ended;
        ended.id = it->second;
        children_.erase(it);
        if (WIFEXITED(status)) {
            ended.exit_code = WEXITSTATUS(status);
            if (ended.exit_code == 127)
                ended.error = "could not start " + cli_;
        } else {
            ended.error = "initbench run was killed by signal " + std::to_string(WTERMSIG(status));
        }
        return ended;
    }

    std::string cli_;
    std::map<pid_t, size_t> children_;
    std::map<int, struct sigaction> old_;
    size_t next_id_ = 0;
    bool forwarded_ = false;
};

} // namespace

std::unique_ptr<BootBackend> local_boot_backend(std::string cli) {
    return std::make_unique<LocalBackend>(std::move(cli));
}

} // namespace initbench
