// init/settings: a payload's experiment file between the profile and the command line.
#include "init/settings.h"

#include <gtest/gtest.h>
#include <map>

namespace initbench {
namespace {

const std::map<std::string, std::string, std::less<>> kProfiles = {
    {"default", "phases = none,fork\nduration = 2\nrepeat = 2\n"},
    {"quick", "duration = 1\n"},
};

ConfigResult settings(const std::string& cmdline, std::optional<std::string> experiment) {
    auto lookup = [](std::string_view name) -> std::optional<std::string> {
        auto it = kProfiles.find(name);
        return it == kProfiles.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    return settings_from(cmdline, lookup, {"default", "quick"}, experiment);
}

TEST(PayloadSettings, WithoutAnExperimentFileNothingChanges) {
    auto r = settings("initbench.profile=quick", std::nullopt);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.config.source("duration"), "profile:quick");
    EXPECT_EQ(r.config.str("profile"), "quick");
}

TEST(PayloadSettings, ExperimentOverDefaultProfileUnderCmdline) {
    auto r = settings("quiet initbench.repeat=7", "cmd = busybox true\nrepeat = 3\nduration = 4\n");
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    EXPECT_EQ(r.config.str("cmd"), "busybox true");
    EXPECT_EQ(r.config.source("cmd"), "profile:payload");
    EXPECT_EQ(r.config.seconds("duration"), 4);              // experiment over the profile
    EXPECT_EQ(r.config.uint("repeat"), 7u);                  // the command line over both
    EXPECT_EQ(r.config.source("phases"), "profile:default"); // the profile under it
    EXPECT_EQ(r.config.profiles(), (std::vector<std::string>{"default", "payload"}));
}

TEST(PayloadSettings, CmdlineProfileReplacesTheFilesInclude) {
    auto r = settings("initbench.profile=quick initbench.cmd=\"ls -l\"",
                      "include = default\nrepeat = 3\n");
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    EXPECT_EQ(r.config.profiles(), (std::vector<std::string>{"quick", "payload"}));
    EXPECT_EQ(r.config.str("cmd"), "ls -l");
    EXPECT_EQ(r.config.source("phases"), "default");
    auto own = settings("", "include = quick\n");
    ASSERT_TRUE(own.ok());
    EXPECT_EQ(own.config.profiles(), (std::vector<std::string>{"quick", "payload"}));
}

TEST(PayloadSettings, ErrorsNameTheExperimentFileAndLine) {
    auto r = settings("", "repeat = 3\n\nrepeat = x\n");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.errors[0].source, "profile:payload");
    EXPECT_EQ(r.errors[0].line, 3u);
    auto bad_cmdline = settings("initbench.profile=nosuch", "repeat = 3\n");
    EXPECT_FALSE(bad_cmdline.ok());
}

} // namespace
} // namespace initbench
