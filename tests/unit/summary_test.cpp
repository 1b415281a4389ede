// KTAP and LAVA summaries derived from records.
#include "common/summary.h"

#include <gtest/gtest.h>

using namespace initbench;
using json = nlohmann::json;

namespace {

std::vector<json> sample_run() {
    return {
        {{"type", "header"}},
        {{"type", "phase"}, {"phase", "fork"}, {"round", 0},
         {"metrics", {{"ops_per_s", {{"value", 512.5}, {"unit", "fork+exit+wait/s"}, {"agg", "hmean"}}}}}},
        {{"type", "probe"}, {"probe", "funclat"}, {"function", "kernel_clone"}, {"phase", "fork"}, {"round", 0},
         {"supported", true}, {"unit", "ns"}, {"count", 10}, {"avg", 1500.0}, {"max", 4000}},
        {{"type", "probe"}, {"probe", "funclat"}, {"function", "task_mm_cid_work"}, {"phase", "fork"},
         {"round", 0}, {"supported", false}, {"reason", "function not found\nin BTF # or kallsyms"}},
        {{"type", "error"}, {"what", "phase thread"}, {"reason", "fork: Resource temporarily unavailable"}},
        {{"type", "end"}, {"status", "error"}},
    };
}

} // namespace

TEST(Summary, TestCasesFromRecords) {
    auto cases = test_cases(sample_run());
    ASSERT_GE(cases.size(), 7u);
    EXPECT_EQ(cases[0].id, "fork-r0-ops_per_s");
    EXPECT_EQ(cases[0].result, "pass");
    EXPECT_DOUBLE_EQ(*cases[0].measurement, 512.5);
    EXPECT_EQ(cases[1].id, "probe-funclat-kernel_clone-fork-r0-count");
    auto skip = std::find_if(cases.begin(), cases.end(), [](auto& c) { return c.result == "skip"; });
    ASSERT_NE(skip, cases.end());
    EXPECT_EQ(skip->id, "probe-funclat-task_mm_cid_work-fork-r0");
    EXPECT_EQ(cases.back().id, "run-complete");
    EXPECT_EQ(cases.back().result, "fail");
}

TEST(Summary, IdsAreUniqueAndSafe) {
    std::vector<json> records = {
        {{"type", "phase"}, {"phase", "Odd Name!"}, {"round", 0}, {"metrics", {{"m", {{"value", 1}}}}}},
        {{"type", "phase"}, {"phase", "Odd Name!"}, {"round", 0}, {"metrics", {{"m", {{"value", 2}}}}}},
    };
    auto cases = test_cases(records);
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].id, "odd_name_-r0-m");
    EXPECT_EQ(cases[1].id, "odd_name_-r0-m-2");
}

// An error record names its key and the value refused, wherever it is shown.
TEST(Summary, ErrorTextNamesTheKeyAndTheValue) {
    EXPECT_EQ(error_text({{"type", "error"}, {"what", "config"}, {"key", "initbench.duration"}, {"value", "2x"},
                          {"source", "cmdline"}, {"reason", "not a number of seconds"}}),
              "config (initbench.duration=2x): not a number of seconds");
    EXPECT_EQ(error_text({{"type", "error"}, {"what", "phase fork"}, {"key", "load.x"},
                          {"reason", "exited with status 2"}}),
              "phase fork (load.x): exited with status 2");
    EXPECT_EQ(error_text({{"type", "error"}, {"what", "phase thread"}, {"reason", "fork: EAGAIN"}}),
              "phase thread: fork: EAGAIN");
}

TEST(Summary, KtapFormat) {
    std::string out = ktap(test_cases(sample_run()));
    EXPECT_EQ(out.rfind("KTAP version 1\n1..", 0), 0u);
    EXPECT_NE(out.find("ok 1 fork-r0-ops_per_s # 512.5 fork+exit+wait/s\n"), std::string::npos);
    EXPECT_NE(out.find("ok 5 probe-funclat-task_mm_cid_work-fork-r0 # SKIP unsupported: function not found in BTF   or kallsyms\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("not ok 6 error-1 # phase thread: fork: Resource temporarily unavailable\n"), std::string::npos)
        << out;
}

TEST(Summary, LavaLines) {
    std::string out = lava_lines(test_cases(sample_run()));
    EXPECT_EQ(out.rfind("initbench-lava-start\n", 0), 0u);
    EXPECT_NE(out.find("initbench-case: fork-r0-ops_per_s result=pass measurement=512.5 units=fork_exit_wait_s\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("initbench-case: run-complete result=fail\n"), std::string::npos);
    EXPECT_TRUE(out.ends_with("initbench-lava-end\n"));
}

TEST(Summary, OddRecordsDoNotThrow) {
    std::vector<json> odd = {json(7), {{"type", 3}}, {{"type", "phase"}, {"metrics", 5}},
                             {{"type", "probe"}, {"supported", "yes"}, {"count", "x"}}};
    EXPECT_NO_THROW(ktap(test_cases(odd)));
}
