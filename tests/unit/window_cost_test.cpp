// A probe's cost in a window (bpf/core/window_cost.h) from the kernel's counters, which run
// from each program's load on: the readings here start well above zero, as they do after the
// probe's set-up and earlier windows, so that a cost taken as the reading at the window's
// close, rather than what the counts grew by, comes out wrong.
#include "bpf/core/window_cost.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace initbench {
namespace {

using Reading = std::vector<ProgramRuns>;

// Two programs (an entry and a return hook), read at the opening and the close of two
// windows one after the other; between the windows the counts go on (the phase's record is
// written, the next phase starts).
const Reading kOpen1 = {{"entry", 1000, 400'000}, {"exit", 990, 300'000}};
const Reading kClose1 = {{"entry", 1300, 460'000}, {"exit", 1290, 330'000}};
const Reading kOpen2 = {{"entry", 1310, 462'000}, {"exit", 1300, 331'000}};
const Reading kClose2 = {{"entry", 1410, 472'000}, {"exit", 1400, 341'000}};

TEST(WindowCost, EachWindowCostsWhatTheCountsGrewByInIt) {
    struct Expected {
        const Reading &open, &close;
        uint64_t entry_runs, entry_ns, exit_runs, exit_ns;
    };
    const Expected windows[] = {{kOpen1, kClose1, 300, 60'000, 300, 30'000},
                                {kOpen2, kClose2, 100, 10'000, 100, 10'000}};
    for (const Expected& w : windows) {
        auto cost = window_cost(w.open, w.close, 2.0);
        ASSERT_TRUE(cost) << cost.error().message();
        const nlohmann::json& c = cost.value();
        SCOPED_TRACE(c.dump());
        EXPECT_EQ(c["supported"], true);
        EXPECT_EQ(c["runs"].get<uint64_t>(), w.entry_runs + w.exit_runs);
        EXPECT_EQ(c["ns"].get<uint64_t>(), w.entry_ns + w.exit_ns);
        EXPECT_DOUBLE_EQ(c["ns_per_run"].get<double>(),
                         double(w.entry_ns + w.exit_ns) / double(w.entry_runs + w.exit_runs));
        ASSERT_EQ(c["programs"].size(), 2u);
        EXPECT_EQ(c["programs"][0]["name"], "entry");
        EXPECT_EQ(c["programs"][0]["runs"].get<uint64_t>(), w.entry_runs);
        EXPECT_EQ(c["programs"][0]["ns"].get<uint64_t>(), w.entry_ns);
        EXPECT_EQ(c["programs"][1]["name"], "exit");
        EXPECT_EQ(c["programs"][1]["runs"].get<uint64_t>(), w.exit_runs);
        EXPECT_EQ(c["programs"][1]["ns"].get<uint64_t>(), w.exit_ns);
    }
}

// The share of the window's CPU time: the first window's 90 us of 2 CPU-seconds.
TEST(WindowCost, CpuShareIsTheWindowsTimeOverItsCpuTime) {
    auto cost = window_cost(kOpen1, kClose1, 2.0);
    ASSERT_TRUE(cost);
    EXPECT_DOUBLE_EQ(cost.value()["cpu_pct"].get<double>(), 100.0 * 90e-6 / 2.0);
}

// A window in which the programs never ran costs nothing, however much they ran before; its
// time per run is null, not a division by zero.
TEST(WindowCost, AWindowWithoutRunsCostsNothing) {
    auto cost = window_cost(kClose2, kClose2, 2.0);
    ASSERT_TRUE(cost);
    EXPECT_EQ(cost.value()["runs"].get<uint64_t>(), 0u);
    EXPECT_EQ(cost.value()["ns"].get<uint64_t>(), 0u);
    EXPECT_DOUBLE_EQ(cost.value()["cpu_pct"].get<double>(), 0.0);
    EXPECT_TRUE(cost.value()["ns_per_run"].is_null());
}

TEST(WindowCost, ReadingsOfOtherProgramsHaveNoCost) {
    auto cost = window_cost(kOpen1, {kClose1[0]}, 2.0);
    ASSERT_FALSE(cost);
    EXPECT_EQ(cost.error().message(), "the probe's programs changed during the window");
}

} // namespace
} // namespace initbench
