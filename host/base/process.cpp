#include "host/base/process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <thread>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

double now_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

struct Pipe {
    int r = -1, w = -1;
    bool open() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return false;
        r = fds[0];
        w = fds[1];
        return true;
    }
    ~Pipe() {
        if (r >= 0)
            ::close(r);
        if (w >= 0)
            ::close(w);
    }
};

// Blocks the signals that end us while the child runs; restores the mask on scope exit.
class SignalGuard {
public:
    SignalGuard() {
        sigemptyset(&set_);
        for (int s : {SIGINT, SIGTERM, SIGHUP})
            sigaddset(&set_, s);
        ::sigprocmask(SIG_BLOCK, &set_, &old_);
        fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
    }
    ~SignalGuard() {
        if (fd_ >= 0)
            ::close(fd_);
        ::sigprocmask(SIG_SETMASK, &old_, nullptr);
    }
    int fd() const { return fd_; }
    const sigset_t& old_mask() const { return old_; }

private:
    sigset_t set_{}, old_{};
    int fd_ = -1;
};

[[noreturn]] void exec_child(const std::vector<std::string>& argv, int out, int err, const sigset_t& mask) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::sigprocmask(SIG_SETMASK, &mask, nullptr);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    exec_or_exit(argv);
}

void kill_group(pid_t pid) {
    ::kill(-pid, SIGTERM);
    for (int i = 0; i < 20; i++) { // QEMU exits on SIGTERM at once; don't wait for long
        if (::waitpid(pid, nullptr, WNOHANG) == pid)
            return;
        ::usleep(50'000);
    }
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
}

// Starts argv in a process group of its own, its output into the pipes' write ends (closed
// here once the child has them). -1, with out's error, when no child could be started.
pid_t spawn(const std::vector<std::string>& argv, Pipe& stdout_pipe, Pipe& stderr_pipe,
            const SignalGuard& signals, ChildOutcome& out) {
    if (!stdout_pipe.open() || !stderr_pipe.open()) {
        out.end = ChildOutcome::End::spawn_failed;
        out.error = std::string("pipe: ") + std::strerror(errno);
        return -1;
    }
    pid_t pid = ::fork();
    if (pid < 0) {
        out.end = ChildOutcome::End::spawn_failed;
        out.error = std::string("fork: ") + std::strerror(errno);
        return -1;
    }
    if (pid == 0)
        exec_child(argv, stdout_pipe.w, stderr_pipe.w, signals.old_mask());
    ::setpgid(pid, pid);
    ::close(stdout_pipe.w);
    ::close(stderr_pipe.w);
    stdout_pipe.w = stderr_pipe.w = -1;
    return pid;
}

// The reaped child's end: its exit code or signal. 127 before any output is the exec failing
// (exec_child's message is all its stderr said).
void record_status(int status, ChildOutcome& out) {
    if (WIFEXITED(status))
        out.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        out.term_signal = WTERMSIG(status);
    if (out.exit_code == 127 && out.first_output_s < 0) {
        out.end = ChildOutcome::End::spawn_failed;
        out.error = out.stderr_text;
    }
}

// Keeps the last 8 KiB the child wrote to stderr: enough to say why it failed.
void keep_tail(std::string& text, std::string_view more) {
    constexpr size_t kTail = 8192;
    text.append(more);
    if (text.size() > kTail)
        text.erase(0, text.size() - kTail);
}

} // namespace

[[noreturn]] void exec_or_exit(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
}

ChildOutcome run_child(const ChildRun& run) {
    ChildOutcome out;
    Pipe stdout_pipe, stderr_pipe;
    SignalGuard signals;
    const double t0 = now_s();
    const pid_t pid = spawn(run.argv, stdout_pipe, stderr_pipe, signals, out);
    if (pid < 0)
        return out;

    double deadline = t0 + run.timeout_s;
    bool out_open = true, err_open = true;
    char buf[65536];
    auto finish_killed = [&](ChildOutcome::End why) {
        kill_group(pid);
        out.end = why;
        out.wall_s = now_s() - t0;
        return out;
    };
    int status = 0;
    rusage usage{};
    bool reaped = false;
    while (!reaped) {
        double now = now_s();
        if (now >= deadline)
            return finish_killed(out.complete_s >= 0 ? ChildOutcome::End::lingered : ChildOutcome::End::timeout);
        if (run.first_output_deadline_s > 0 && out.first_output_s < 0 && now - t0 >= run.first_output_deadline_s)
            return finish_killed(ChildOutcome::End::no_output);
        pollfd fds[3] = {{out_open ? stdout_pipe.r : -1, POLLIN, 0},
                         {err_open ? stderr_pipe.r : -1, POLLIN, 0},
                         {signals.fd(), POLLIN, 0}};
        // With both pipes closed the child may still run: wake up to check on it.
        double slice = out_open || err_open ? 0.25 : 0.02;
        int wait_ms = static_cast<int>(std::min(deadline - now, slice) * 1000) + 1;
        if (::poll(fds, 3, wait_ms) < 0 && errno != EINTR)
            break;
        if (fds[2].revents & POLLIN) {
            signalfd_siginfo si{};
            if (::read(signals.fd(), &si, sizeof si) == sizeof si) {
                out.term_signal = static_cast<int>(si.ssi_signo);
                return finish_killed(ChildOutcome::End::interrupted);
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = ::read(stdout_pipe.r, buf, sizeof buf);
            if (n <= 0) {
                out_open = false;
            } else {
                if (out.first_output_s < 0)
                    out.first_output_s = now_s() - t0;
                if (run.on_output && run.on_output(std::string_view(buf, size_t(n))) && out.complete_s < 0) {
                    out.complete_s = now_s() - t0;
                    deadline = std::min(deadline, now_s() + run.exit_grace_s);
                }
            }
        }
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            ssize_t n = ::read(stderr_pipe.r, buf, sizeof buf);
            if (n <= 0)
                err_open = false;
            else
                keep_tail(out.stderr_text, std::string_view(buf, size_t(n)));
        }
        if (!out_open && !err_open)
            reaped = ::wait4(pid, &status, WNOHANG, &usage) == pid;
    }
    if (!reaped)
        ::wait4(pid, &status, 0, &usage);
    out.wall_s = now_s() - t0;
    out.cpu_s = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    record_status(status, out);
    return out;
}

Status pin_to_host_cpus(const std::vector<unsigned>& cpus) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (unsigned cpu : cpus)
        CPU_SET(cpu, &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0)
        return Error{std::string("sched_setaffinity: ") + std::strerror(errno)};
    return ok();
}

std::vector<unsigned> allowed_host_cpus() {
    cpu_set_t set;
    std::vector<unsigned> cpus;
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
        for (unsigned c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpus.push_back(c);
    }
    for (unsigned c = 0; cpus.empty() && c < std::max(1u, std::thread::hardware_concurrency()); c++)
        cpus.push_back(c); // unknown: as many as the hardware has
    return cpus;
}

} // namespace initbench
