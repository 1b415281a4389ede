// The counted command (initbench.cmd) run natively with programs that cannot be executed:
// the error record says why with execve's own errno. The child reports it up a pipe after
// the failed execve; any system call it made in between would put its own errno there (a
// close of an fd already closed: "Bad file descriptor") and the record would blame that.
#include "init/commands.h"

#include "common/text.h"
#include "tests/unit/temp_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace initbench {
namespace {

class CountedCommand : public ::testing::Test {
protected:
    // Runs `cmd` as initbench.cmd; the records the console would show are kept in records_.
    bool run(const std::string& cmd) {
        ConfigResult r = parse_config("initbench.cmd=" + cmd, nullptr, {});
        EXPECT_TRUE(r.ok()) << r.errors[0].describe();
        const std::string path = dir_ / "records";
        Console console;
        console.write_to(Fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)),
                         "test");
        KmsgWatcher kmsg;
        ExperimentTimes times;
        const bool ok = run_commands(r.config, console, kmsg, times);
        const std::string text = slurp(path);
        for (std::string_view line : split_lines(text))
            if (line.rfind("IB1 ", 0) == 0) // IB1 <seq> <crc> <json>
                records_.push_back(nlohmann::json::parse(line.substr(line.find(' ', line.find(' ', 4) + 1) + 1)));
        return ok;
    }
    // The cmd error record's reason, or "" when there is none.
    std::string error_reason() const {
        for (const nlohmann::json& r : records_)
            if (r.value("type", "") == "error" && r.value("what", "") == "cmd")
                return r.value("reason", "");
        return "";
    }
    std::string all_records() const {
        std::string out;
        for (const nlohmann::json& r : records_)
            out += r.dump() + "\n";
        return out;
    }
    // A file of `dir_` with this text and mode.
    std::string file(const std::string& name, const std::string& text, mode_t mode) const {
        const std::string path = dir_.file(name, text);
        EXPECT_EQ(::chmod(path.c_str(), mode), 0);
        return path;
    }
    void expect_refused_with(const std::string& path, int err) {
        EXPECT_FALSE(run(path));
        const std::string reason = error_reason();
        EXPECT_NE(reason.find("cannot execute " + path), std::string::npos) << all_records();
        EXPECT_NE(reason.find(std::strerror(err)), std::string::npos)
            << "not execve's errno (" << std::strerror(err) << "): " << reason;
        for (const nlohmann::json& r : records_)
            EXPECT_NE(r.value("type", ""), "command") << "a record of runs that never ran: " << r.dump();
    }
    // The output file run_commands writes in /tmp, as in the guest.
    void TearDown() override { ::unlink("/tmp/initbench-command.out"); }

    TempDir dir_;
    std::vector<nlohmann::json> records_;
};

// A path with a '/' is taken as it is, not looked up: execve itself finds nothing there.
TEST_F(CountedCommand, AMissingProgramIsNamedWithExecvesErrno) {
    expect_refused_with(dir_ / "no-such-program", ENOENT);
}

// Without an execute bit, even root's execve refuses.
TEST_F(CountedCommand, AProgramWithoutExecutePermissionIsNamedWithExecvesErrno) {
    expect_refused_with(file("script.sh", "#!/bin/sh\nexit 0\n", 0644), EACCES);
}

// Executable, but neither ELF nor a script: execve, unlike a shell, does not run it with sh.
TEST_F(CountedCommand, AFileThatIsNoProgramIsNamedWithExecvesErrno) {
    expect_refused_with(file("data", "just some words\n", 0755), ENOEXEC);
}

} // namespace
} // namespace initbench
