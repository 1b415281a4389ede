// The two local backends: boots in this process, and boots in child processes (forked, not
// executed again: the child boots the parent's typed plan, so no option goes through argv).
#include "host/boot/boot_backend.h"

#include "host/base/output_file.h"
#include "host/base/process.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {

Status write_document(const std::string& path, const BootOutcome& outcome) {
    return write_output_file(path, outcome.document.dump(1) + "\n");
}

namespace {

// Boots `request` and writes its document: the exit code and, when the boot ran well but
// the document could not be written, why.
BootEnded boot_and_write(const BootRequest& request) {
    auto outcome = std::make_shared<BootOutcome>(boot_once(request.run));
    BootEnded ended;
    ended.exit_code = outcome->verdict.exit_code;
    if (!request.out_path.empty())
        if (auto written = write_document(request.out_path, *outcome); !written) {
            ended.error = written.error().message();
            ended.exit_code = kExitUsage;
        }
    ended.outcome = std::move(outcome);
    return ended;
}

class InProcessBackend final : public BootBackend {
public:
    Result<size_t> start(const BootRequest& request) override {
        if (interrupted_)
            return Error{"interrupted"};
        BootEnded ended = boot_and_write(request);
        ended.id = next_id_++;
        interrupted_ = ended.exit_code == kExitInterrupted;
        ended_.push_back(std::move(ended));
        return ended_.back().id;
    }
    std::optional<BootEnded> wait_any() override {
        if (ended_.empty())
            return std::nullopt;
        BootEnded ended = std::move(ended_.front());
        ended_.pop_front();
        return ended;
    }
    size_t running() const override { return ended_.size(); }
    bool interrupted() const override { return interrupted_; }

private:
    std::deque<BootEnded> ended_;
    size_t next_id_ = 0;
    bool interrupted_ = false;
};

volatile sig_atomic_t g_signal = 0;

void on_signal(int sig) { g_signal = sig; }

// The child's whole life: its messages next to its console log, its host CPUs, the boot, the
// document; its exit code is the verdict's.
[[noreturn]] void boot_in_child(const BootRequest& request) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
        ::signal(sig, SIG_DFL); // run_child takes them while QEMU runs, as `run` does
    ::prctl(PR_SET_PDEATHSIG, SIGTERM); // never outlive the parent
    const std::string messages = request.run.log_path + ".stderr";
    if (int fd = ::open(messages.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
    }
    if (!request.host_cpus.empty()) // inherited by QEMU and its threads
        if (auto pinned = pin_to_host_cpus(request.host_cpus); !pinned)
            std::fprintf(stderr, "initbench: cannot pin the boot to its host CPUs: %s\n",
                         pinned.error().message().c_str());
    const BootEnded ended = boot_and_write(request);
    std::fputs(failure_lines(*ended.outcome).c_str(), stderr);
    if (!ended.error.empty())
        std::fprintf(stderr, "initbench: %s\n", ended.error.c_str());
    std::fflush(nullptr);
    ::_exit(ended.exit_code); // not exit(): the parent's objects are the parent's to end
}

class ChildBackend final : public BootBackend {
public:
    ChildBackend() {
        g_signal = 0;
        struct sigaction sa {};
        sa.sa_handler = on_signal; // no SA_RESTART: waitpid returns EINTR
        sigemptyset(&sa.sa_mask);
        for (int sig : {SIGINT, SIGTERM, SIGHUP})
            ::sigaction(sig, &sa, &old_[sig]);
    }
    ~ChildBackend() override {
        stop_all(SIGTERM);
        while (!children_.empty())
            reap(0);
        for (auto& [sig, old] : old_)
            ::sigaction(sig, &old, nullptr);
    }

    Result<size_t> start(const BootRequest& request) override {
        if (g_signal)
            return Error{"interrupted"};
        std::cout.flush(); // what is buffered is printed once, by the parent
        std::fflush(nullptr);
        pid_t pid = ::fork();
        if (pid < 0)
            return Error{std::string("fork: ") + std::strerror(errno)};
        if (pid == 0)
            boot_in_child(request);
        children_[pid] = next_id_;
        return next_id_++;
    }

    std::optional<BootEnded> wait_any() override {
        while (!children_.empty()) {
            if (g_signal && !forwarded_) {
                // A terminal's Ctrl-C reaches the children too; a kill of the parent alone does not.
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
        if (WIFEXITED(status))
            ended.exit_code = WEXITSTATUS(status);
        else
            ended.error = "the boot's process was killed by signal " + std::to_string(WTERMSIG(status));
        return ended;
    }

    std::map<pid_t, size_t> children_;
    std::map<int, struct sigaction> old_;
    size_t next_id_ = 0;
    bool forwarded_ = false;
};

} // namespace

std::unique_ptr<BootBackend> in_process_boot_backend() { return std::make_unique<InProcessBackend>(); }

std::unique_ptr<BootBackend> child_boot_backend() { return std::make_unique<ChildBackend>(); }

} // namespace initbench
