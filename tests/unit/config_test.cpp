#include "common/config.h"
#include "common/machine.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace initbench {
namespace {

using Profiles = std::map<std::string, std::string, std::less<>>;

ProfileLookup lookup_in(const Profiles &profiles) {
    return [&profiles](std::string_view name) -> std::optional<std::string> {
        auto it = profiles.find(name);
        if (it == profiles.end())
            return std::nullopt;
        return it->second;
    };
}

ConfigResult parse(std::string_view cmdline, const Profiles &profiles = {}) {
    return parse_config(cmdline, lookup_in(profiles));
}

// The one error a command line is expected to produce.
ConfigError only_error(const ConfigResult &r) {
    std::string all;
    for (const auto &e : r.errors)
        all += e.describe() + "\n";
    EXPECT_EQ(r.errors.size(), 1u) << all;
    return r.errors.empty() ? ConfigError{} : r.errors[0];
}

bool has(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

TEST(ConfigKeys, DefaultsAreValidAndNamesUnique) {
    std::set<std::string_view> names;
    for (const KeySpec &spec : config_keys()) {
        ConfigValue v;
        EXPECT_EQ(parse_value(spec, spec.def, v), "") << spec.name;
        EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
        EXPECT_FALSE(spec.help.empty()) << spec.name;
    }
}

TEST(Config, Defaults) {
    const ConfigResult r = parse("root=/dev/vda console=ttyS0 quiet");
    EXPECT_TRUE(r.ok());
    const Config &c = r.config;
    EXPECT_EQ(c.str("profile"), "default");
    EXPECT_DOUBLE_EQ(c.seconds("duration"), 5);
    EXPECT_EQ(c.uint("rounds"), 1u);
    EXPECT_EQ(c.str("end"), "poweroff");
    EXPECT_EQ(c.list("phases"), (std::vector<std::string>{"none"}));
    EXPECT_TRUE(c.list("funclat").empty());
    EXPECT_EQ(c.source("duration"), "default");
    EXPECT_TRUE(c.profiles().empty()); // no "default" profile, and none was asked for
    // Programming errors do not throw.
    EXPECT_EQ(c.uint("duration"), 0u);
    EXPECT_EQ(c.str("nope"), "");
}

TEST(Config, SplitCmdlineLikeTheKernel) {
    const auto params =
        split_cmdline(" a=b  initbench.load=\"stress cpu 2\" \"x y=z w\" bare q=\"\"\n");
    ASSERT_EQ(params.size(), 5u);
    EXPECT_EQ(params[1].key, "initbench.load");
    EXPECT_EQ(params[1].value, "stress cpu 2");
    EXPECT_EQ(params[2].key, "x y");
    EXPECT_EQ(params[2].value, "z w");
    EXPECT_EQ(params[3].key, "bare");
    EXPECT_FALSE(params[3].value.has_value());
    EXPECT_EQ(params[4].value, "");
}

TEST(Config, CmdlineValues) {
    const ConfigResult r =
        parse("console=ttyS0 initbench.duration=0.5 initbench.rounds=3 initbench.end=reboot "
              "initbench.phases=boot,idle initbench.cmd_ignored_by_kernel=1 "
              "initbench.funclat=\" vfs_read , vfs_write\"");
    ASSERT_EQ(r.errors.size(), 1u); // only the unknown key
    const Config &c = r.config;
    EXPECT_DOUBLE_EQ(c.seconds("duration"), 0.5);
    EXPECT_EQ(c.uint("rounds"), 3u);
    EXPECT_EQ(c.str("end"), "reboot");
    EXPECT_EQ(c.list("phases"), (std::vector<std::string>{"boot", "idle"}));
    EXPECT_EQ(c.list("funclat"), (std::vector<std::string>{"vfs_read", "vfs_write"}));
    EXPECT_EQ(c.str("funclat"), "vfs_read,vfs_write");
    EXPECT_EQ(c.source("rounds"), "cmdline");
}

TEST(Config, UnknownKeySuggestsTheNearest) {
    ConfigError e = only_error(parse("initbench.durtion=5"));
    EXPECT_EQ(e.key, "initbench.durtion");
    EXPECT_EQ(e.source, "cmdline");
    EXPECT_TRUE(has(e.reason, "did you mean 'initbench.duration'?")) << e.reason;
    e = only_error(parse("initbench.xyzzyplugh=5"));
    EXPECT_EQ(e.reason, "unknown key");
}

TEST(Config, BadNumbers) {
    EXPECT_TRUE(has(only_error(parse("initbench.duration=abc")).reason, "not a number"));
    EXPECT_TRUE(has(only_error(parse("initbench.duration=1e3")).reason, "not a number"));
    EXPECT_TRUE(has(only_error(parse("initbench.duration=-1")).reason, "not a number"));
    EXPECT_TRUE(has(only_error(parse("initbench.duration=1.2.3")).reason, "not a number"));
    EXPECT_TRUE(has(only_error(parse("initbench.rounds=1.5")).reason, "not a whole number"));
    EXPECT_TRUE(has(only_error(parse("initbench.rounds=+2")).reason, "not a whole number"));
    EXPECT_TRUE(
        has(only_error(parse("initbench.rounds=99999999999999999999999")).reason, "out of range"));
}

// Found by fuzz_config: a huge MAX overflowed the bucket count (undefined behaviour, and a
// count that could wrap to an accepted one).
TEST(Config, HugeLinearHistogramIsTooManyBuckets) {
    EXPECT_TRUE(has(only_error(parse("initbench.funclat.hist=10:1000000000000000000000:5:us")).reason,
                    "more than 256 buckets"));
    EXPECT_TRUE(has(only_error(parse("initbench.funclat.hist=0:1:0.0000000000000000001:ns")).reason,
                    "more than 256 buckets"));
    EXPECT_TRUE(parse("initbench.funclat.hist=0:256:1:us").ok());
    EXPECT_TRUE(has(only_error(parse("initbench.funclat.hist=0:257:1:us")).reason, "more than 256 buckets"));
}

TEST(Config, OutOfRangeSaysTheRange) {
    EXPECT_EQ(only_error(parse("initbench.duration=0.01")).reason,
              "out of range: must be between 0.05 and 86400 seconds");
    EXPECT_EQ(only_error(parse("initbench.rounds=0")).reason,
              "out of range: must be between 1 and 1000");
    EXPECT_TRUE(has(only_error(parse("initbench.loglevel=9")).reason, "between 0 and 8"));
    // Range ends are inclusive, and a decimal at the bound is exact.
    EXPECT_TRUE(parse("initbench.duration=0.05 initbench.rounds=1000 initbench.loglevel=0").ok());
    EXPECT_TRUE(parse("initbench.warmup=.5 initbench.timeout=1.").ok());
}

TEST(Config, BadEnum) {
    const ConfigError e = only_error(parse("initbench.end=explode"));
    EXPECT_EQ(e.value, "explode");
    EXPECT_EQ(e.reason, "must be one of: poweroff, reboot, halt, shell");
}

// Every enumeration row: each of its choices is taken, its default is one of them, and
// nothing else (not a choice's prefix, not two choices, not the empty text) is.
TEST(Config, EnumTakesEachChoiceAndNothingElse) {
    int rows = 0;
    for (const KeySpec& spec : config_keys()) {
        if (spec.kind != Kind::enumeration)
            continue;
        SCOPED_TRACE(std::string(spec.name));
        rows++;
        ConfigValue v;
        bool default_is_a_choice = false;
        for (std::string_view rest = spec.choices;;) {
            const std::string_view choice = rest.substr(0, rest.find('|'));
            ASSERT_FALSE(choice.empty());
            EXPECT_EQ(parse_value(spec, choice, v), "");
            EXPECT_EQ(std::get<std::string>(v), choice);
            EXPECT_NE(parse_value(spec, choice.substr(0, choice.size() - 1), v), "");
            default_is_a_choice |= choice == spec.def;
            if (choice.size() == rest.size())
                break;
            rest.remove_prefix(choice.size() + 1);
        }
        EXPECT_TRUE(default_is_a_choice) << spec.def;
        EXPECT_NE(parse_value(spec, spec.choices, v), ""); // "a|b" is no choice
        EXPECT_TRUE(parse_value(spec, "", v).starts_with("must be one of: "));
    }
    EXPECT_GE(rows, 14); // the general table's, the loads' and the probes'
}

TEST(Config, EmptyMissingAndDuplicateValues) {
    EXPECT_EQ(only_error(parse("initbench.phases=")).reason, "empty value");
    EXPECT_TRUE(has(only_error(parse("initbench.duration")).reason, "missing value"));
    const ConfigResult r = parse("initbench.rounds=2 initbench.rounds=3");
    EXPECT_TRUE(has(only_error(r).reason, "more than once"));
    EXPECT_EQ(r.config.uint("rounds"), 2u);
    EXPECT_EQ(only_error(parse("initbench.phases=a,,b")).reason, "empty item in list");
}

// A list that is empty by default can be emptied again; every other key keeps the error.
TEST(Config, EmptyValueClearsAProfilesList) {
    const Profiles profiles = {
        {"probes", "funclat = vfs_read, vfs_write\nkthread = rcu_tasks*\nperf = default\n"},
        {"fewer", "include = probes\nfunclat =\n"},
    };
    const ConfigResult cleared = parse(
        "initbench.profile=probes initbench.funclat= initbench.kthread= initbench.perf=", profiles);
    EXPECT_TRUE(cleared.ok()) << cleared.errors[0].describe();
    for (const char *key : {"funclat", "kthread", "perf"}) {
        EXPECT_TRUE(cleared.config.list(key).empty()) << key;
        EXPECT_EQ(cleared.config.source(key), "cmdline") << key;
        EXPECT_EQ(cleared.config.str(key), "") << key;
    }
    const ConfigResult kept = parse("initbench.profile=probes", profiles);
    EXPECT_EQ(kept.config.list("funclat"), (std::vector<std::string>{"vfs_read", "vfs_write"}));
    // In a profile too: an included profile's list cleared.
    const ConfigResult fewer = parse("initbench.profile=fewer", profiles);
    EXPECT_TRUE(fewer.ok()) << fewer.errors[0].describe();
    EXPECT_TRUE(fewer.config.list("funclat").empty());
    EXPECT_EQ(fewer.config.source("funclat"), "profile:fewer");
    EXPECT_EQ(fewer.config.list("kthread"), (std::vector<std::string>{"rcu_tasks*"}));
    for (const char *key : {"phases", "pipe.groups", "span", "cmd", "duration", "load.cpus", "end"})
        EXPECT_EQ(only_error(parse(std::string("initbench.") + key + "=")).reason, "empty value")
            << key;
    const ConfigResult in_profile = parse("initbench.profile=p", {{"p", "span =\n"}});
    EXPECT_EQ(only_error(in_profile).reason, "empty value");
    EXPECT_TRUE(has(only_error(parse("initbench.funclat")).reason, "missing value"));
}

TEST(Config, ProfilesAndPrecedence) {
    const Profiles profiles = {
        {"base", "# shared settings\n\nduration = 2\nrounds = 4\nwarmup = 1\n"},
        {"fast", "description = quick check\ninclude = base\n  duration = 0.5  \nfunclat = "
                 "\"vfs_read, vfs_write\"\r\n"},
    };
    const ConfigResult r = parse("initbench.profile=fast initbench.rounds=7", profiles);
    EXPECT_TRUE(r.ok()) << r.errors[0].describe();
    const Config &c = r.config;
    EXPECT_EQ(c.uint("rounds"), 7u); // cmdline over profile
    EXPECT_EQ(c.source("rounds"), "cmdline");
    EXPECT_DOUBLE_EQ(c.seconds("duration"), 0.5); // profile over what it includes
    EXPECT_EQ(c.source("duration"), "profile:fast");
    EXPECT_DOUBLE_EQ(c.seconds("warmup"), 1);
    EXPECT_EQ(c.source("warmup"), "profile:base");
    EXPECT_EQ(c.list("funclat"), (std::vector<std::string>{"vfs_read", "vfs_write"}));
    EXPECT_EQ(c.str("end"), "poweroff");
    EXPECT_EQ(c.source("end"), "default");
    EXPECT_EQ(c.profiles(), (std::vector<std::string>{"base", "fast"}));
    EXPECT_EQ(c.description(), "quick check");
    const nlohmann::json j = c.to_json();
    EXPECT_EQ(j["values"]["rounds"], 7);
    EXPECT_EQ(j["values"]["phases"], nlohmann::json::array({"none"}));
    EXPECT_EQ(j["sources"]["warmup"], "profile:base");
}

// The description is the chosen profile's own: one that includes a described profile, and
// has none itself, has none (the report then shows its settings instead).
TEST(Config, DescriptionIsTheChosenProfilesOwn) {
    const Profiles profiles = {{"default", "description = the default set\nphases = fork\n"},
                               {"mine", "include = default\nphases = cpu\n"},
                               {"told", "description = cpu only\ninclude = mine\n"}};
    EXPECT_EQ(parse("", profiles).config.description(), "the default set");
    EXPECT_EQ(parse("initbench.profile=mine", profiles).config.description(), "");
    EXPECT_EQ(parse("initbench.profile=told", profiles).config.description(), "cpu only");
}

TEST(Config, ImplicitDefaultProfileIsApplied) {
    const ConfigResult r = parse("", {{"default", "rounds = 2\n"}});
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.config.uint("rounds"), 2u);
    EXPECT_EQ(r.config.source("rounds"), "profile:default");
}

TEST(Config, UnknownProfileListsTheAvailable) {
    const Profiles profiles = {{"fast", ""}, {"slow", ""}};
    const ConfigResult r =
        parse_config("initbench.profile=quick", lookup_in(profiles), {"fast", "slow"});
    const ConfigError e = only_error(r);
    EXPECT_EQ(e.key, "initbench.profile");
    EXPECT_EQ(e.reason, "no such profile; available: fast, slow");
    EXPECT_TRUE(has(only_error(parse("initbench.profile=../etc/passwd")).reason, "a-z"));
}

TEST(Config, IncludeProblems) {
    const Profiles profiles = {
        {"a", "include = b\n"},
        {"b", "rounds = 2\ninclude = a\n"},
        {"self", "include = self\n"},
        {"lost", "include = nowhere\n"},
    };
    ConfigError e = only_error(parse("initbench.profile=a", profiles));
    EXPECT_EQ(e.reason, "include cycle: a -> b -> a");
    EXPECT_EQ(e.source, "profile:b");
    EXPECT_EQ(e.line, 2u);
    EXPECT_TRUE(has(only_error(parse("initbench.profile=self", profiles)).reason, "cycle"));
    EXPECT_EQ(only_error(parse("initbench.profile=lost", profiles)).reason, "no such profile");
}

TEST(Config, ProfileLineErrors) {
    const Profiles profiles = {{"p", "rounds = 2\n"
                                     "rounds = 3\n"
                                     "duraton = 1\n"
                                     "initbench.warmup = 1\n"
                                     "just words\n"
                                     "profile = other\n"
                                     "end = sideways\n"
                                     "phases =\n"}};
    const ConfigResult r = parse("initbench.profile=p", profiles);
    ASSERT_EQ(r.errors.size(), 7u);
    std::vector<unsigned> lines;
    for (const auto &e : r.errors) {
        lines.push_back(e.line);
        EXPECT_EQ(e.source, "profile:p");
    }
    EXPECT_EQ(lines,
              (std::vector<unsigned>{2, 3, 4, 5, 6, 8, 7})); // value errors come when applied
    EXPECT_TRUE(has(r.errors[1].reason, "did you mean 'duration'?"));
    EXPECT_TRUE(has(r.errors[2].reason, "prefix"));
    EXPECT_EQ(r.errors[6].describe(),
              "profile:p line 7: end=sideways: must be one of: poweroff, reboot, halt, shell");
    EXPECT_EQ(r.config.uint("rounds"), 2u);
}

TEST(Config, InvalidUtf8IsRefusedAndNeverEchoedRaw) {
    const ConfigResult r = parse("initbench.funclat=a\xff initbench.\xc0x=1",
                                 {{"default", "description = \xed\xa0\x80\n"}});
    ASSERT_EQ(r.errors.size(), 3u);
    EXPECT_EQ(r.errors[0].key, "initbench.?x"); // the command line is read first
    EXPECT_EQ(r.errors[1].reason, "not valid UTF-8");
    EXPECT_EQ(r.errors[2].value, "a?");
    EXPECT_EQ(r.config.str("funclat"), "");
    for (const auto &e : r.errors)
        EXPECT_NO_THROW(e.to_json().dump());
    EXPECT_NO_THROW(r.config.to_json().dump());
    EXPECT_TRUE(parse("initbench.funclat=caf\xc3\xa9").ok());
}

// The kinds on their own, with rows made up here: the production table changes.
TEST(Config, UintKind) {
    KeySpec big;
    big.name = "big", big.kind = Kind::uint, big.umin = 0, big.umax = uint64_t(1) << 63;
    ConfigValue v;
    EXPECT_EQ(parse_value(big, "9223372036854775808", v), "");
    EXPECT_EQ(std::get<uint64_t>(v), uint64_t(1) << 63);
    EXPECT_TRUE(has(parse_value(big, "9223372036854775809", v), "out of range"));
    EXPECT_TRUE(has(parse_value(big, "18446744073709551616", v), "out of range")); // 2^64
    EXPECT_EQ(parse_value(big, "", v), "not a whole number");
}

TEST(Config, SecondsKind) {
    KeySpec s;
    s.name = "s", s.kind = Kind::seconds, s.min = 0.05, s.max = 10;
    ConfigValue v;
    EXPECT_EQ(parse_value(s, "0.05", v), "");
    EXPECT_EQ(std::get<double>(v), 0.05); // exactly the literal, so the bound holds
    EXPECT_EQ(parse_value(s, "10.000", v), "");
    EXPECT_TRUE(has(parse_value(s, "10.001", v), "out of range"));
    EXPECT_EQ(parse_value(s, "1234567890.1234567890", v), "too many digits");
    EXPECT_TRUE(has(parse_value(s, ".", v), "not a number"));
}

TEST(Config, StringKind) {
    KeySpec text;
    text.name = "t", text.kind = Kind::string;
    ConfigValue v;
    EXPECT_EQ(parse_value(text, "stress -c 2", v), "");
    EXPECT_EQ(std::get<std::string>(v), "stress -c 2");
    text.check = check_profile_name;
    EXPECT_TRUE(has(parse_value(text, "Bad Name", v), "a-z"));
}

TEST(Config, FlagAndListKinds) {
    KeySpec flag;
    flag.name = "f", flag.kind = Kind::flag;
    ConfigValue v;
    for (const char *on : {"1", "yes", "true", "on", "ON"}) {
        EXPECT_EQ(parse_value(flag, on, v), "");
        EXPECT_EQ(std::get<bool>(v), true) << on;
    }
    for (const char *off : {"0", "no", "false", "off"}) {
        EXPECT_EQ(parse_value(flag, off, v), "");
        EXPECT_EQ(std::get<bool>(v), false) << off;
    }
    EXPECT_NE(parse_value(flag, "maybe", v), "");
    KeySpec names;
    names.name = "n", names.kind = Kind::list, names.check = check_profile_name;
    EXPECT_TRUE(has(parse_value(names, "ok,Not-OK", v), "Not-OK"));
}

TEST(Config, NeverThrows) {
    const ProfileLookup throwing = [](std::string_view) -> std::optional<std::string> {
        throw std::runtime_error("disk on fire");
    };
    const ConfigResult r = parse_config("initbench.profile=x", throwing);
    EXPECT_TRUE(has(only_error(r).reason, "disk on fire"));

    std::mt19937 rng(3);
    const std::string alphabet = "initbench.=\" ,0123456789abcdefghijklmnopqrstuvwxyz-_\t\n\\";
    for (int round = 0; round < 2000; ++round) {
        std::string cmdline = "initbench.";
        for (auto n = rng() % 60; n > 0; --n)
            cmdline += alphabet[rng() % alphabet.size()];
        EXPECT_NO_THROW(parse(cmdline, {{"default", cmdline}}).config.to_json().dump());
    }
}

} // namespace
} // namespace initbench

namespace initbench {
namespace {

TEST(Machine, TopologyParsesAndRefusesNonsense) {
    auto t = parse_topology("2:48:2");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->cpus(), 192u);
    for (const char* bad : {"", "2", "2:4", "2:4:2:1", "0:4:2", "2:x:2", "2:4:2 ", "-1:4:2", "2::2"})
        EXPECT_FALSE(parse_topology(bad)) << bad;
    EXPECT_EQ(only_error(parse("initbench.machine.topology=2:4")).key, "initbench.machine.topology");
}

TEST(Machine, TopologyMustMultiplyToTheCpus) {
    const ConfigError e = only_error(parse("initbench.machine.cpus=8 initbench.machine.topology=2:4:2"));
    EXPECT_EQ(e.key, "initbench.machine.topology");
    EXPECT_TRUE(has(e.reason, "16 CPUs, but machine.cpus is 8")) << e.reason;
    // From a profile, the error names the profile.
    const Profiles p = {{"default", ""}, {"sis", "machine.cpus = 12\nmachine.topology = 1:6:2\n"}};
    EXPECT_TRUE(parse("initbench.profile=sis", p).ok());
    const ConfigError from_profile = only_error(parse("initbench.profile=sis initbench.machine.cpus=16", p));
    EXPECT_EQ(from_profile.source, "profile:sis");
    EXPECT_EQ(only_error(parse("initbench.machine.cpus=2000")).key, "initbench.machine.cpus");
}

} // namespace
} // namespace initbench

namespace initbench {
namespace {

TEST(Config, SeedProbeKeys) {
    const ConfigResult d = parse("");
    EXPECT_EQ(d.config.str("wakeups.tasks"), "all");
    EXPECT_EQ(d.config.str("task_storage_churn.on"), "");
    const ConfigResult r =
        parse("initbench.wakeups.tasks=user initbench.task_storage_churn.on=__x64_sys_getpgid");
    EXPECT_TRUE(r.errors.empty());
    EXPECT_EQ(r.config.str("wakeups.tasks"), "user");
    EXPECT_EQ(r.config.str("task_storage_churn.on"), "__x64_sys_getpgid");
    EXPECT_TRUE(parse("initbench.task_storage_churn.on=foo.isra.0").errors.empty());
    EXPECT_EQ(only_error(parse("initbench.wakeups.tasks=kernel")).reason, "must be one of: all, user");
    EXPECT_TRUE(has(only_error(parse("initbench.task_storage_churn.on=sys/getpgid")).reason, "kernel function"));
    EXPECT_TRUE(parse("initbench.task_storage_churn.on=syscall:getpgid").errors.empty());
    EXPECT_TRUE(has(only_error(parse("initbench.task_storage_churn.on=syscall:")).reason, "syscall:getpgid"));
    EXPECT_TRUE(has(only_error(parse("initbench.task_storage_churn.on=syscall:get/pgid")).reason, "system call"));
}

} // namespace
} // namespace initbench
