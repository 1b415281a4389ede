// `initbench kconfig check`: the feature table and the verdicts it gives for a .config.
#include "host/kconfig.h"

#include <gtest/gtest.h>

using namespace initbench;

namespace {

// A config with every option the built-in table names, for the given arch.
std::map<std::string, std::string> full_config(const char* arch) {
    std::map<std::string, std::string> c{{arch, "y"}};
    for (const auto& row : parse_feature_table(builtin_feature_table()))
        for (const auto& o : row.options)
            c[o] = "y";
    return c;
}

const FeatureVerdict& verdict(const std::vector<FeatureVerdict>& all, const std::string& feature) {
    for (const auto& v : all)
        if (v.feature == feature)
            return v;
    throw std::runtime_error("no verdict for " + feature);
}

} // namespace

TEST(Kconfig, TableParses) {
    auto table = parse_feature_table(builtin_feature_table());
    ASSERT_GT(table.size(), 10u);
    EXPECT_EQ(table[0].name, "boot");
    for (const auto& row : table) {
        EXPECT_FALSE(row.options.empty()) << row.name;
        EXPECT_FALSE(row.loss.empty()) << row.name;
    }
    EXPECT_THROW(parse_feature_table("boot\tBPF\n"), std::runtime_error);
}

TEST(Kconfig, ParsesDotConfig) {
    auto c = parse_kernel_config("#\n# CONFIG_KPROBES is not set\nCONFIG_BPF=y\nCONFIG_NAME=\"x\"\nCONFIG_X=m\n");
    EXPECT_EQ(c.at("BPF"), "y");
    EXPECT_EQ(c.at("NAME"), "\"x\"");
    EXPECT_EQ(c.at("X"), "m");
    EXPECT_EQ(c.count("KPROBES"), 0u);
}

TEST(Kconfig, EverythingWorksWithTheFullSet) {
    auto table = parse_feature_table(builtin_feature_table());
    for (const auto& v : check_kernel_config(table, full_config("X86_64")))
        EXPECT_EQ(v.status, "works") << v.feature;
}

TEST(Kconfig, NoDirectCallsDegradesFentryToKprobes) {
    // arm64 6.1 has no DYNAMIC_FTRACE_WITH_DIRECT_CALLS: fentry attach fails with -524.
    auto c = full_config("ARM64");
    c.erase("DYNAMIC_FTRACE_WITH_DIRECT_CALLS");
    auto all = check_kernel_config(parse_feature_table(builtin_feature_table()), c);
    const auto& v = verdict(all, "funclat-fentry");
    EXPECT_EQ(v.status, "degrades");
    EXPECT_EQ(v.detail, "falls back to funclat-kprobe");
    EXPECT_EQ(v.missing, std::vector<std::string>{"DYNAMIC_FTRACE_WITH_DIRECT_CALLS"});
    EXPECT_EQ(verdict(all, "console-arm64").status, "works");
    EXPECT_THROW(verdict(all, "console-x86_64"), std::runtime_error); // not this arch's row
}

TEST(Kconfig, NoFallbackLeftIsUnsupported) {
    auto c = full_config("X86_64");
    c.erase("DEBUG_INFO_BTF");
    c["KPROBES"] = "m"; // a module cannot serve: the image loads none of its own
    auto all = check_kernel_config(parse_feature_table(builtin_feature_table()), c);
    EXPECT_EQ(verdict(all, "funclat-fentry").status, "unsupported");
    EXPECT_EQ(verdict(all, "funclat-kprobe").status, "unsupported");
    EXPECT_EQ(verdict(all, "wakeups-btf").status, "degrades");
    EXPECT_EQ(verdict(all, "task-storage").status, "unsupported");
    EXPECT_EQ(verdict(all, "boot").status, "works");
}
