#include "init/background.h"

#include "common/perf_events.h"
#include "common/text.h"
#include "init/commands.h"
#include "init/load_group.h"

#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>

namespace initbench {
namespace {

constexpr const char* kOutputPath = "/tmp/initbench-background.out";

// The last non-empty line of what the command printed, for the warning.
std::string last_output_line() {
    std::string text = read_file(kOutputPath, 1 << 20).value_or("");
    auto lines = split_lines(text);
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (auto line = trim(*it); !line.empty())
            return std::string(line.substr(0, 200));
    return {};
}

} // namespace

bool Background::start(const std::string& command, Console& console) {
    if (command.empty())
        return true;
    std::vector<std::string> argv;
    // The key's own check refused a bad command already; this is for the record.
    if (auto why = split_command(command, argv); !why.empty()) {
        console.error("background", why, "background");
        return false;
    }
    const std::string path = resolve_program(argv[0]);
    if (path.empty()) {
        console.error("background",
                      "'" + argv[0] + "' not found in " + std::string(command_path_env() + 5),
                      "background");
        return false;
    }
    // Everything the child needs is made before fork: the init has threads, so the child may
    // only make async-signal-safe calls.
    std::vector<char*> cargv;
    for (auto& a : argv)
        cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const char* const env[] = {command_path_env(), "HOME=/root", "TERM=linux", nullptr};
    const int out_fd = ::open(kOutputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    Fd out(out_fd >= 0 ? out_fd : ::open("/dev/null", O_WRONLY | O_CLOEXEC));
    Fd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const pid_t pid = ::fork();
    if (pid < 0) {
        console.error("background", errno_error("fork").message(), "background");
        return false;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr); // init blocks every signal; payloads must not
        ::setpgid(0, 0);
        ::dup2(in.get(), 0);
        ::dup2(out.get(), 1);
        ::dup2(out.get(), 2);
        ::execve(path.c_str(), cargv.data(), const_cast<char* const*>(env));
        static const char kFailed[] = "background: execve failed\n";
        (void)!::write(2, kFailed, sizeof kFailed - 1);
        ::_exit(127);
    }
    ::setpgid(pid, pid);
    pid_ = pid;
    command_ = command;
    return true;
}

void Background::kill_and_reap(int* status, bool* exited_before) {
    int s = 0;
    pid_t got;
    while ((got = ::waitpid(pid_, &s, WNOHANG)) < 0 && errno == EINTR) {
    }
    const bool before = got == pid_;
    ::kill(-pid_, SIGKILL);
    if (!before && got == 0)
        while (::waitpid(pid_, &s, 0) < 0 && errno == EINTR) {
        }
    // What it started, now the init's children in its process group: reaped for a second at
    // most (a task stuck in the kernel is left to the end's reaping).
    const double deadline = monotonic_seconds() + 1;
    while (monotonic_seconds() < deadline) {
        const pid_t p = ::waitpid(-pid_, nullptr, WNOHANG);
        if (p < 0 && errno == ECHILD)
            break;
        if (p <= 0)
            ::usleep(1000);
    }
    if (status)
        *status = s;
    if (exited_before)
        *exited_before = before;
    pid_ = 0;
}

void Background::stop(Console& console) {
    if (!pid_)
        return;
    int status = 0;
    bool exited_before = false;
    kill_and_reap(&status, &exited_before);
    if (exited_before && status != 0) {
        std::string reason =
            "'" + command_ + "' " + describe_exit(status) + " before the run ended";
        if (auto line = last_output_line(); !line.empty())
            reason += ": " + line;
        console.warning("background", reason);
    }
}

Background::~Background() {
    if (pid_)
        kill_and_reap(nullptr, nullptr);
}

} // namespace initbench
