#include "init/background.h"

#include "common/external_load.h"
#include "common/perf_events.h"
#include "common/record_types.h"
#include "common/text.h"
#include "init/commands.h"
#include "payload/core/load_group.h"
#include "sys/child.h"

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

namespace initbench {
namespace {

// The longest wait for a stopped command's tasks to be reaped (they usually are at once).
constexpr double kReapSetupS = 10;

bool listening(unsigned port) {
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"})
        if (auto text = read_file(table, 1 << 20); text && tcp_listening(text.value(), port))
            return true;
    return false;
}

// The last non-empty line of what the command printed, for a warning or an error.
std::string last_line(const std::string& text) {
    auto lines = split_lines(text);
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (auto line = trim(*it); !line.empty())
            return std::string(line.substr(0, 200));
    return {};
}

constexpr std::pair<const char*, int> kWindowSignals[] = {
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP}};

} // namespace

int background_signal(const std::string& name) {
    for (const auto& [n, sig] : kWindowSignals)
        if (name == n)
            return sig;
    return 0;
}

std::string background_signal_name(int signal) {
    for (const auto& [n, sig] : kWindowSignals)
        if (signal == sig)
            return n;
    return "none";
}

BackgroundOptions background_options(const Config& config) {
    BackgroundOptions o;
    o.command = config.str("background");
    o.ready = config.str("background.ready");
    o.ready_timeout = config.seconds("background.ready_timeout");
    o.window_signal = background_signal(config.str("background.window_signal"));
    o.record = config.flag("background.record");
    return o;
}

bool Background::start(BackgroundOptions options, Console& console) {
    options_ = std::move(options);
    const std::string& command = options_.command;
    if (command.empty())
        return true;
    std::vector<std::string> argv;
    // The key's own check refused a bad command already; this is for the record.
    if (auto why = split_command(command, argv); !why.empty()) {
        console.error(options_.what, why, options_.key);
        return false;
    }
    const std::string path = resolve_program(argv[0]);
    if (path.empty()) {
        console.error(options_.what,
                      "'" + argv[0] + "' not found in " + std::string(command_path_env() + 5),
                      options_.key);
        return false;
    }
    // Everything the child needs is made before fork: the init has threads, so the child may
    // only make async-signal-safe calls.
    std::vector<char*> cargv;
    for (auto& a : argv)
        cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const char* const env[] = {command_path_env(), "HOME=/root", "TERM=linux", nullptr};
    // Appending: the window marks the init writes land between the command's own lines.
    const int out_fd = ::open(options_.output_path.c_str(),
                              O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    Fd out(out_fd >= 0 ? out_fd : ::open("/dev/null", O_WRONLY | O_CLOEXEC));
    Fd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    // A failed execve sends its errno up this close-on-exec pipe; a successful one closes it.
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) {
        console.error(options_.what, errno_error("pipe").message(), options_.key);
        return false;
    }
    Fd report_read(report[0]), report_write(report[1]);
    const double t0 = monotonic_seconds();
    const pid_t pid = ::fork();
    if (pid < 0) {
        console.error(options_.what, errno_error("fork").message(), options_.key);
        return false;
    }
    if (pid == 0) {
        enter_child({.pgid = 0, .in = in.get(), .out = out.get(), .err = out.get()});
        ::execve(path.c_str(), cargv.data(), const_cast<char* const*>(env));
        exec_failed(report_write.get());
    }
    ::setpgid(pid, pid);
    report_write.reset();
    if (const int err = exec_errno(report_read.get())) {
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        console.error(options_.what, Error{"cannot execute " + path, err}.message(), options_.key);
        return false;
    }
    pid_ = started_ = pid;
    start_time_ = t0;
    return true;
}

bool Background::reaped_now() {
    if (exited_)
        return true;
    if (!pid_)
        return false;
    pid_t got;
    while ((got = ::waitpid(pid_, &status_, WNOHANG)) < 0 && errno == EINTR) {
    }
    exited_ = got == pid_;
    return exited_;
}

bool Background::wait_ready(Console& console) {
    if (!pid_ || (options_.ready.empty() && !options_.ready_port))
        return true;
    const double deadline = start_time_ + options_.ready_timeout;
    const std::string port = std::to_string(options_.ready_port);
    const bool text = !options_.ready.empty();
    const std::string awaited = text ? "print '" + options_.ready + "'" : "listen on TCP port " + port;
    const std::string before = text ? "printed '" + options_.ready + "'" : "listened on TCP port " + port;
    for (;;) {
        // The text may be printed by the command's last act: look before asking if it ended.
        const bool ended = reaped_now();
        if ((options_.ready.empty() || output().find(options_.ready) != std::string::npos) &&
            (!options_.ready_port || listening(options_.ready_port))) {
            ready_s_ = monotonic_seconds() - start_time_;
            return true;
        }
        std::string why;
        if (ended)
            why = "'" + options_.command + "' " + describe_exit(status_) + " before it " + before;
        else if (monotonic_seconds() >= deadline)
            why = "'" + options_.command + "' did not " + awaited + " within " +
                  format_number(options_.ready_timeout) + " s (" + options_.ready_key + "_timeout)";
        if (!why.empty()) {
            if (auto line = last_line(output()); !line.empty())
                why += "; its last line: " + line;
            console.error(options_.what, why, options_.ready_key);
            return false;
        }
        ::usleep(20 * 1000);
    }
}

void Background::window(const char* event, const std::string& phase, uint64_t round) {
    if (!pid_ || !options_.window_signal)
        return;
    const nlohmann::json mark{
        {"initbench", event}, {"phase", phase}, {"round", round}, {"t", monotonic_seconds()}};
    if (auto fd = open_fd(options_.output_path, O_WRONLY | O_APPEND | O_CLOEXEC)) {
        (void)write_all(fd.value().get(), mark.dump() + "\n");
        struct stat st {};
        after_mark_ = ::fstat(fd.value().get(), &st) == 0 ? st.st_size : 0;
    }
    marks_++;
    if (!exited_)
        ::kill(pid_, options_.window_signal);
}

void Background::await_answer() {
    if (!pid_ || !options_.window_signal)
        return;
    // The answer has come when the output has grown past the mark and then stayed the same
    // for a while (an answer of several lines is written in several writes).
    const double deadline = monotonic_seconds() + kBackgroundAnswerWait;
    off_t last = after_mark_;
    double changed = 0;
    struct stat st {};
    while (monotonic_seconds() < deadline && !reaped_now()) {
        const double now = monotonic_seconds();
        if (::stat(options_.output_path.c_str(), &st) == 0 && st.st_size != last) {
            last = st.st_size;
            changed = now;
        } else if (changed > 0 && now - changed >= 0.1) {
            return;
        }
        ::usleep(5 * 1000);
    }
}

void Background::kill_and_reap() {
    exited_before_stop_ = reaped_now();
    ::kill(-pid_, SIGKILL);
    if (!exited_) {
        while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
        }
        exited_ = true;
    }
    // What it started, now the init's children in its process group: reaped until none is
    // left, which is at once on a quiet machine. A killed server with many sockets can take
    // seconds to die under TCG on a busy host (a tbench_srv child outlived a one-second wait
    // and was counted left over); one stuck in the kernel is left to the end's reaping.
    const double deadline = monotonic_seconds() + kReapSetupS;
    while (monotonic_seconds() < deadline) {
        const pid_t p = ::waitpid(-pid_, nullptr, WNOHANG);
        if (p < 0 && errno == ECHILD)
            break;
        if (p <= 0)
            ::usleep(1000);
    }
    pid_ = 0;
}

void Background::stop(Console& console) {
    if (!pid_)
        return;
    kill_and_reap();
    if (exited_before_stop_ && status_ != 0) {
        std::string reason =
            "'" + options_.command + "' " + describe_exit(status_) + " before the run ended";
        if (auto line = last_line(output()); !line.empty())
            reason += ": " + line;
        console.warning(options_.what, reason);
    }
    if (options_.record)
        console.emit(record());
}

std::string Background::output() const {
    return read_file(options_.output_path, 64 << 20).value_or("");
}

nlohmann::json Background::record() const {
    const std::string text = output();
    const bool cut = text.size() > kBackgroundRecordTail;
    nlohmann::json r{{"type", "background"},
                     {"command", options_.command},
                     {"pid", started_},
                     {"marks", marks_},
                     {"output_bytes", text.size()},
                     {"output_truncated", cut},
                     {"output", cut ? text.substr(text.size() - kBackgroundRecordTail) : text}};
    if (!options_.ready.empty()) {
        r["ready"] = options_.ready;
        r["ready_s"] = ready_s_ >= 0 ? nlohmann::json(ready_s_) : nlohmann::json(nullptr);
        RecordBuilder(declared_type("background"), r).metric("ready_s", r["ready_s"]);
    }
    if (options_.window_signal)
        r["window_signal"] = background_signal_name(options_.window_signal);
    if (exited_) {
        // Killed at the stop, or ended on its own before it.
        r["ended"] = exited_before_stop_ ? describe_exit(status_) : "killed at the end of the run";
        if (exited_before_stop_)
            r[WIFSIGNALED(status_) ? "signal" : "exit"] =
                WIFSIGNALED(status_) ? WTERMSIG(status_) : WEXITSTATUS(status_);
    }
    return r;
}

Background::~Background() {
    if (pid_)
        kill_and_reap();
}

} // namespace initbench
