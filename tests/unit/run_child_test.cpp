// Unit tests of the host's child runner (run_child: output, exit codes, timeouts that kill
// the whole group, signals) and of file hashing.
#include "host/base/hash.h"
#include "host/base/process.h"

#include <chrono>
#include <csignal>
#include <thread>

#include "tests/unit/temp_dir.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

using End = ChildOutcome::End;

// ---- process: run_child() -------------------------------------------------------------

ChildRun sh(const std::string& script, double timeout_s = 20) {
    ChildRun r;
    r.argv = {"/bin/sh", "-c", script};
    r.timeout_s = timeout_s;
    return r;
}

// True once `pid` no longer runs (gone, or a zombie left to someone else to reap).
bool gone_within(pid_t pid, double seconds) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    do {
        if (::kill(pid, 0) != 0 && errno == ESRCH)
            return true;
        std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
        auto paren = stat.rfind(')');
        if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z')
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < until);
    return false;
}

TEST(RunChild, ExitedWithOutput) {
    std::string got;
    ChildRun r = sh("echo hello; echo world");
    r.on_output = [&](std::string_view s) {
        got += s;
        return false;
    };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::exited);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(got, "hello\nworld\n");
    EXPECT_GE(o.first_output_s, 0);
    EXPECT_LT(o.complete_s, 0);
    EXPECT_LT(o.wall_s, 10);
}

TEST(RunChild, ExitCodeAndStderr) {
    const ChildOutcome o = run_child(sh("echo to-stderr >&2; exit 3"));
    EXPECT_EQ(o.end, End::exited);
    EXPECT_EQ(o.exit_code, 3);
    EXPECT_EQ(o.stderr_text, "to-stderr\n");
    EXPECT_LT(o.first_output_s, 0); // nothing on stdout
}

TEST(RunChild, StderrKeepsTheLast8KiB) {
    const ChildOutcome o = run_child(sh("i=0; while [ $i -lt 2000 ]; do echo line-$i >&2; i=$((i+1)); done"));
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.stderr_text.size(), 8192u);
    EXPECT_TRUE(o.stderr_text.ends_with("line-1999\n"));
}

// Runs a script that prints a process id and outlives a one-second timeout; the outcome and
// that id.
std::pair<ChildOutcome, pid_t> time_out_printing_pid(const std::string& script) {
    std::string got;
    ChildRun r = sh(script, 1);
    r.on_output = [&](std::string_view s) {
        got += s;
        return false;
    };
    const ChildOutcome o = run_child(r);
    return {o, std::atoi(got.c_str())};
}

TEST(RunChild, TimeoutKillsTheChild) {
    const auto [o, pid] = time_out_printing_pid("echo $$; exec sleep 100");
    EXPECT_EQ(o.end, End::timeout);
    EXPECT_GE(o.wall_s, 0.9);
    EXPECT_LT(o.wall_s, 5);
    ASSERT_GT(pid, 1);
    errno = 0;
    EXPECT_EQ(::kill(pid, 0), -1);
    EXPECT_EQ(errno, ESRCH);
}

TEST(RunChild, TimeoutKillsTheWholeGroup) {
    const auto [o, grandchild] = time_out_printing_pid("sleep 100 & echo $!; wait");
    EXPECT_EQ(o.end, End::timeout);
    ASSERT_GT(grandchild, 1);
    EXPECT_TRUE(gone_within(grandchild, 3));
}

TEST(RunChild, TimeoutHoldsWhenTheChildClosesItsOutput) {
    // Regression (was a bug): host/base/process.cpp run_child(): the poll loop runs only `while (out_open ||
    // err_open)`; a child that closes (or redirects) stdout and stderr but keeps running is
    // then waited for with a blocking waitpid(pid, &status, 0), so timeout_s is not enforced.
    const ChildOutcome o = run_child(sh("exec >/dev/null 2>&1; sleep 4", 1));
    EXPECT_EQ(o.end, End::timeout);
    EXPECT_LT(o.wall_s, 3);
}

TEST(RunChild, NoFirstOutput) {
    ChildRun r = sh("exec sleep 100");
    r.first_output_deadline_s = 0.5;
    r.on_output = [](std::string_view) { return false; };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::no_output);
    EXPECT_LT(o.first_output_s, 0);
    EXPECT_GE(o.wall_s, 0.4);
    EXPECT_LT(o.wall_s, 5);
}

TEST(RunChild, OutputBeforeTheFirstOutputDeadlineIsFine) {
    ChildRun r = sh("echo early; sleep 1; echo late");
    r.first_output_deadline_s = 0.5;
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::exited);
    EXPECT_EQ(o.exit_code, 0);
}

TEST(RunChild, LingeringAfterCompleteOutput) {
    ChildRun r = sh("echo $$; echo done; sleep 100");
    r.exit_grace_s = 0.5;
    std::string got;
    r.on_output = [&](std::string_view s) {
        got += s;
        return contains(got, "done\n");
    };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::lingered);
    EXPECT_GE(o.complete_s, 0);
    EXPECT_LT(o.wall_s, 5);
    const pid_t pid = std::atoi(got.c_str());
    ASSERT_GT(pid, 1);
    EXPECT_TRUE(gone_within(pid, 1));
}

TEST(RunChild, CompleteAndExitingIsExited) {
    ChildRun r = sh("echo done");
    r.exit_grace_s = 5;
    r.on_output = [](std::string_view) { return true; };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::exited);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_GE(o.complete_s, 0);
}

TEST(RunChild, MissingProgram) {
    ChildRun r;
    r.argv = {"/nonexistent/initbench-no-such-program", "-x"};
    r.timeout_s = 10;
    const ChildOutcome o = run_child(r);
    EXPECT_TRUE(o.end == End::spawn_failed || o.exit_code == 127);
    const std::string text = o.error + o.stderr_text;
    EXPECT_TRUE(contains(text, "initbench-no-such-program")) << text;
    EXPECT_TRUE(contains(text, "No such file")) << text;
}

// A SIGTERM for us while the child runs stops the child and is reported, not fatal.
TEST(RunChild, SignalInterrupts) {
    const ChildOutcome o = run_child(sh("kill -TERM $PPID; exec sleep 100", 10));
    EXPECT_EQ(o.end, End::interrupted);
    EXPECT_EQ(o.term_signal, SIGTERM);
    EXPECT_LT(o.wall_s, 5);
}

// ---- hash ---------------------------------------------------------------------------

TEST(Sha256File, KnownDigests) {
    TempDir tmp;
    EXPECT_EQ(sha256_file(tmp.file("abc", "abc")),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_file(tmp.file("empty", "")),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // Larger than the 64 KiB read buffer: 1,000,000 x 'a' (FIPS 180-2 test vector).
    EXPECT_EQ(sha256_file(tmp.file("million", std::string(1000000, 'a'))),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256File, MissingFileThrows) {
    TempDir tmp;
    EXPECT_THROW(sha256_file(tmp / "missing"), std::runtime_error);
}

// ab's children get the boot options as `initbench run` arguments: every option, set away
// from its default, reads back as it was.

} // namespace
} // namespace initbench
