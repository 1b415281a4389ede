// `initbench kconfig check`: the feature table and the verdicts it gives for real kernels'
// configs. The configs are the lines of Debian's and the tiny kernels' configs that the
// table names (tests/unit/data/kconfig/, extract.sh says where each came from); the
// expected verdicts come from what those kernels are known to do when booted, not from the
// table, so a wrong row fails here. tests/boot/bootlib.py checks the same against boots.
#include "host/lab/kconfig.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <set>

using namespace initbench;

namespace {

std::filesystem::path data_dir() {
    if (const char* d = std::getenv("INITBENCH_KCONFIG_DATA"))
        return d;
    return std::filesystem::path(__FILE__).parent_path() / "data" / "kconfig";
}

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    if (!in)
        throw std::runtime_error("cannot read " + p.string());
    return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<FeatureRow> table() { return parse_feature_table(builtin_feature_table()); }

std::map<std::string, std::string> saved_config(const std::string& name) {
    return parse_kernel_config(read_text(data_dir() / (name + ".config")));
}

std::map<std::string, FeatureVerdict> verdicts(const std::map<std::string, std::string>& config) {
    std::map<std::string, FeatureVerdict> out;
    for (auto& v : check_kernel_config(table(), config))
        out.emplace(v.feature, v);
    return out;
}

struct Expected {
    std::string status;
    std::string detail; // "" for works
};

// What each kernel does when booted: every row works except these. The reasons are facts
// about the kernels, seen in their boots (README "Tested kernels").
const std::map<std::string, std::map<std::string, Expected>>& deviations() {
    static const std::map<std::string, std::map<std::string, Expected>> d = {
        {"debian-amd64", {}},
        {"debian-cloud-amd64", {}},
        {"debian-rt-amd64", {}},
        // arm64 6.1 cannot attach fentry (-524: no ftrace direct calls): funclat uses kprobes.
        {"debian-arm64", {{"funclat-fentry", {"degrades", "falls back to funclat-kprobe"}}}},
        {"tiny", {}},
        // No BTF: kprobes time functions, the classic sched_switch and sched_wakeup
        // tracepoints stand in for tp_btf, and task storage (tp_btf only) is lost.
        {"tiny-nobtf",
         {{"btf", {"unsupported", ""}},
          {"funclat-fentry", {"degrades", "falls back to funclat-kprobe"}},
          {"funclat-subtract-btf", {"degrades", "falls back to funclat-subtract-tracepoint"}},
          {"wakeups-btf", {"degrades", "falls back to wakeups-tracepoint"}},
          {"task-storage", {"unsupported", ""}}}},
    };
    return d;
}

bool is_arm64(const std::string& kernel) { return kernel.ends_with("arm64"); }

// Rows for the other architecture are not printed at all.
bool row_applies(const std::string& row, const std::string& kernel) {
    if (row.ends_with("-x86_64"))
        return !is_arm64(kernel);
    if (row.ends_with("-arm64"))
        return is_arm64(kernel);
    return true;
}

} // namespace

TEST(Kconfig, TableParses) {
    auto rows = table();
    ASSERT_GT(rows.size(), 10u);
    EXPECT_EQ(rows[0].name, "boot");
    std::set<std::string> names;
    for (const auto& row : rows) {
        EXPECT_FALSE(row.options.empty()) << row.name;
        EXPECT_FALSE(row.loss.empty()) << row.name;
        EXPECT_TRUE(names.insert(row.name).second) << "duplicate row " << row.name;
    }
    for (const auto& row : rows) { // a fallback that names no row would end the chain silently
        if (!row.fallback.empty()) {
            EXPECT_TRUE(names.count(row.fallback)) << row.name << " falls back to " << row.fallback;
        }
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

// A table naming an option the saved configs do not cover would be judged on a missing
// line: re-run extract.sh when this fails.
TEST(Kconfig, SavedConfigsCoverEveryOption) {
    for (const auto& [kernel, _] : deviations()) {
        if (!std::filesystem::exists(data_dir() / (kernel + ".config")))
            continue; // reported by VerdictsMatchWhatTheKernelsDo
        const std::string text = read_text(data_dir() / (kernel + ".config"));
        auto covered = [&](const std::string& o) {
            for (const char* tail : {"=", " is not set", " absent"})
                if (text.find("CONFIG_" + o + tail) != std::string::npos)
                    return true;
            return false;
        };
        for (const auto& row : table())
            for (const auto& o : row.options)
                EXPECT_TRUE(covered(o)) << kernel << ".config lacks CONFIG_" << o << " (row " << row.name
                                        << "): run " << (data_dir() / "extract.sh").string();
    }
}

TEST(Kconfig, VerdictsMatchWhatTheKernelsDo) {
    for (const auto& [kernel, deviating] : deviations()) {
        SCOPED_TRACE(kernel);
        ASSERT_TRUE(std::filesystem::exists(data_dir() / (kernel + ".config")))
            << "no saved config: run " << (data_dir() / "extract.sh").string();
        auto got = verdicts(saved_config(kernel));
        for (const auto& row : table()) {
            if (!row_applies(row.name, kernel)) {
                EXPECT_FALSE(got.count(row.name)) << row.name << " is for another architecture";
                continue;
            }
            ASSERT_TRUE(got.count(row.name)) << "no verdict for " << row.name;
            const FeatureVerdict& v = got.at(row.name);
            auto d = deviating.find(row.name);
            Expected want = d == deviating.end() ? Expected{"works", ""} : d->second;
            EXPECT_EQ(v.status, want.status) << row.name;
            if (want.status == "degrades") {
                EXPECT_EQ(v.detail, want.detail) << row.name;
            }
            EXPECT_EQ(v.missing.empty(), want.status == "works") << row.name;
        }
        for (const auto& [row, _] : deviating)
            EXPECT_TRUE(got.count(row)) << "expectation for a row the table lacks: " << row;
    }
}

TEST(Kconfig, ArmMissesExactlyTheDirectCalls) {
    auto v = verdicts(saved_config("debian-arm64"));
    EXPECT_EQ(v.at("funclat-fentry").missing, std::vector<std::string>{"DYNAMIC_FTRACE_WITH_DIRECT_CALLS"});
}

TEST(Kconfig, WithoutBtfTheMissingOptionIsBtf) {
    auto v = verdicts(saved_config("tiny-nobtf"));
    for (const char* row : {"btf", "funclat-fentry", "funclat-subtract-btf", "wakeups-btf", "task-storage"})
        EXPECT_EQ(v.at(row).missing, std::vector<std::string>{"DEBUG_INFO_BTF"}) << row;
}

TEST(Kconfig, NoFallbackLeftIsUnsupported) {
    // The no-BTF kernel with kprobes built as a module: the image loads no module of its
    // own, so funclat has nothing left.
    auto c = saved_config("tiny-nobtf");
    c["KPROBES"] = "m";
    auto v = verdicts(c);
    EXPECT_EQ(v.at("funclat-fentry").status, "unsupported");
    EXPECT_EQ(v.at("funclat-kprobe").status, "unsupported");
    EXPECT_EQ(v.at("wakeups-btf").status, "degrades"); // the tracepoint needs no kprobe
    EXPECT_EQ(v.at("boot").status, "works");
}
