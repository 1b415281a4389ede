// The background command (initbench.background), run natively with BusyBox-like shell
// commands: waiting for its ready text, the window marks and signals in its output, its
// record, and how it ended.
#include "init/background.h"

#include "sys/child.h"
#include "sys/sys.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <string>
#include <unistd.h>
#include <vector>

namespace initbench {
namespace {

class BackgroundTest : public ::testing::Test {
protected:
    BackgroundOptions options(const std::string& command) {
        BackgroundOptions o;
        o.command = command;
        o.output_path = output_path_;
        return o;
    }
    bool start(const BackgroundOptions& o) { return bg_.start(o, console_); }
    bool ready() { return bg_.wait_ready(console_); }
    void stop() { bg_.stop(console_); }
    // A test leaves nothing in the temporary directory.
    void TearDown() override { ::unlink(output_path_.c_str()); }
    // The output's lines, read once the command has been stopped.
    static std::vector<std::string> lines(const std::string& text) {
        std::vector<std::string> out;
        size_t start = 0;
        for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
            out.push_back(text.substr(start, nl - start));
        return out;
    }
    Console console_; // no console opened: records go nowhere
    Background bg_;   // the command a test starts
    const std::string output_path_ =
        ::testing::TempDir() + "initbench-background-" + std::to_string(::getpid()) + ".out";
};

// Every child of PID 1 starts here: the mask PID 1 blocks everything with is gone, the child
// leads a process group of its own, and its stdout is the given fd.
TEST(EnterChild, UnblocksSignalsLeadsAGroupAndRedirects) {
    sigset_t term, saved;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    ASSERT_EQ(::sigprocmask(SIG_BLOCK, &term, &saved), 0);
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        enter_child({.pgid = 0, .out = out[1]});
        sigset_t now;
        ::sigprocmask(SIG_SETMASK, nullptr, &now);
        const char* answer = sigismember(&now, SIGTERM) ? "blocked" : ::getpgrp() == ::getpid() ? "ok" : "group";
        (void)!::write(1, answer, std::char_traits<char>::length(answer));
        ::_exit(0);
    }
    ::close(out[1]);
    char buf[16] = {};
    const ssize_t n = ::read(out[0], buf, sizeof buf - 1);
    ::close(out[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ::sigprocmask(SIG_SETMASK, &saved, nullptr);
    EXPECT_EQ(std::string(buf, n > 0 ? size_t(n) : 0), "ok");
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(BackgroundSignal, NamesBothWays) {
    EXPECT_EQ(background_signal("USR1"), SIGUSR1);
    EXPECT_EQ(background_signal("USR2"), SIGUSR2);
    EXPECT_EQ(background_signal("HUP"), SIGHUP);
    EXPECT_EQ(background_signal("none"), 0);
    EXPECT_EQ(background_signal_name(SIGUSR1), "USR1");
    EXPECT_EQ(background_signal_name(0), "none");
}

TEST(BackgroundOptionsFromConfig, Keys) {
    ConfigResult r = parse_config(
        "initbench.background=\"sh -c 'sleep 1'\" initbench.background.ready=attached "
        "initbench.background.ready_timeout=30 initbench.background.window_signal=USR1 "
        "initbench.background.record=1",
        nullptr, {});
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].describe();
    const BackgroundOptions o = background_options(r.config);
    EXPECT_EQ(o.command, "sh -c 'sleep 1'");
    EXPECT_EQ(o.ready, "attached");
    EXPECT_EQ(o.ready_timeout, 30);
    EXPECT_EQ(o.window_signal, SIGUSR1);
    EXPECT_TRUE(o.record);
    EXPECT_FALSE(
        parse_config("initbench.background.window_signal=KILL", nullptr, {}).errors.empty());
}

TEST_F(BackgroundTest, WaitsForTheReadyText) {
    auto o = options("sh -c 'echo starting; sleep 0.3; echo attached; exec sleep 30'");
    o.ready = "attached";
    o.record = true;
    ASSERT_TRUE(start(o));
    const double t0 = monotonic_seconds();
    ASSERT_TRUE(ready());
    EXPECT_GE(monotonic_seconds() - t0, 0.25);
    EXPECT_GT(bg_.group(), 0);
    stop();
    EXPECT_EQ(bg_.group(), 0);
    const auto r = bg_.record();
    EXPECT_EQ(r["type"], "background");
    EXPECT_EQ(r["ready"], "attached");
    EXPECT_GE(r["ready_s"].get<double>(), 0.25);
    EXPECT_EQ(r["metrics"]["ready_s"]["value"], r["ready_s"]); // its one metric (record v3)
    EXPECT_EQ(r["metrics"].size(), 1u);
    EXPECT_EQ(r["ended"], "killed at the end of the run");
    EXPECT_EQ(r["output"], "starting\nattached\n");
    EXPECT_EQ(r["output_truncated"], false);
}

TEST_F(BackgroundTest, ExitBeforeReadyIsAnError) {
    auto o = options("sh -c 'echo cannot attach; exit 3'");
    o.ready = "attached";
    ASSERT_TRUE(start(o));
    EXPECT_FALSE(ready());
    stop();
    const auto r = bg_.record();
    EXPECT_EQ(r["exit"], 3);
    EXPECT_EQ(r["ended"], "exited with status 3");
    EXPECT_EQ(r["ready_s"], nullptr);
    EXPECT_FALSE(r.contains("metrics")) << "never ready: no metric, and the exit status is none";
}

TEST_F(BackgroundTest, ReadyTimeout) {
    auto o = options("sleep 30");
    o.ready = "never";
    o.ready_timeout = 0.3;
    ASSERT_TRUE(start(o));
    const double t0 = monotonic_seconds();
    EXPECT_FALSE(ready());
    EXPECT_LT(monotonic_seconds() - t0, 5);
    stop();
    EXPECT_EQ(bg_.record()["ended"], "killed at the end of the run");
}

TEST_F(BackgroundTest, NoReadyTextNoWait) {
    ASSERT_TRUE(start(options("sleep 30")));
    EXPECT_TRUE(ready());
    stop();
}

TEST_F(BackgroundTest, WindowMarksThenSignals) {
    // The shell takes the signal when its short sleep ends and says so after the mark.
    auto o = options("sh -c 'trap \"echo usr1\" USR1; echo ready; while :; do sleep 0.05; done'");
    o.ready = "ready";
    o.window_signal = SIGUSR1;
    ASSERT_TRUE(start(o));
    ASSERT_TRUE(ready());
    // Each mark is answered before the next: the trap's echo, then 0.1 s of quiet.
    bg_.window("window_open", "syscall", 0);
    bg_.await_answer();
    bg_.window("window_close", "syscall", 0);
    bg_.await_answer();
    stop();
    const auto r = bg_.record();
    EXPECT_EQ(r["marks"], 2);
    EXPECT_EQ(r["window_signal"], "USR1");
    const auto out = lines(r["output"]);
    ASSERT_EQ(out.size(), 5u) << r["output"];
    EXPECT_EQ(out[0], "ready");
    const auto open = nlohmann::json::parse(out[1]);
    EXPECT_EQ(open["initbench"], "window_open");
    EXPECT_EQ(open["phase"], "syscall");
    EXPECT_EQ(open["round"], 0);
    EXPECT_EQ(out[2], "usr1");
    const auto close = nlohmann::json::parse(out[3]);
    EXPECT_EQ(close["initbench"], "window_close");
    EXPECT_GT(close["t"].get<double>(), open["t"].get<double>());
    EXPECT_EQ(out[4], "usr1");
}

TEST_F(BackgroundTest, AwaitAnswerGivesUp) {
    // SIGHUP ignored: no answer ever comes.
    auto o = options("sh -c 'trap \"\" HUP; echo trapped; exec sleep 30'");
    o.window_signal = SIGHUP;
    o.ready = "trapped";
    ASSERT_TRUE(start(o));
    ASSERT_TRUE(ready()); // the trap is set
    bg_.window("window_close", "none", 0);
    const double t0 = monotonic_seconds();
    bg_.await_answer();
    EXPECT_GE(monotonic_seconds() - t0, kBackgroundAnswerWait - 0.1);
    stop();
    EXPECT_EQ(bg_.record()["ended"], "killed at the end of the run");
}

TEST_F(BackgroundTest, NoMarksWithoutASignal) {
    auto o = options("sh -c 'echo ready; exec sleep 30'");
    ASSERT_TRUE(start(o));
    bg_.window("window_open", "none", 0);
    stop();
    EXPECT_EQ(bg_.record()["marks"], 0);
}

TEST_F(BackgroundTest, RecordKeepsTheTail) {
    // 100 000 lines of "xxxxxxxx": more than the record keeps.
    auto o = options("sh -c 'i=0; while [ $i -lt 100000 ]; do echo xxxxxxxx; i=$((i+1)); done; "
                     "echo last; echo done'");
    o.ready = "done";
    o.ready_timeout = 60;
    ASSERT_TRUE(start(o));
    ASSERT_TRUE(ready());
    // Its exit after the last line, left for stop() to reap (ECHILD: wait_ready reaped it).
    siginfo_t info{};
    const int waited = ::waitid(P_PID, static_cast<id_t>(bg_.group()), &info, WEXITED | WNOWAIT);
    ASSERT_TRUE(waited == 0 || errno == ECHILD) << errno;
    stop();
    const auto r = bg_.record();
    EXPECT_EQ(r["output_bytes"], 100000u * 9 + 10);
    EXPECT_EQ(r["output_truncated"], true);
    const std::string out = r["output"];
    EXPECT_EQ(out.size(), kBackgroundRecordTail);
    EXPECT_TRUE(out.ends_with("xxxxxxxx\nlast\ndone\n"));
    EXPECT_EQ(r["exit"], 0); // it had ended by itself before the stop
}

} // namespace
} // namespace initbench
