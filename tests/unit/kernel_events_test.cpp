// common/kernel_events: one vocabulary for the init's kernel records and the host's log.
#include "common/kernel_events.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace initbench {
namespace {

TEST(KernelEvents, ConsoleLinesAndKmsgMessagesAlike) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"[    3.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [init:1]", "lockup"},
        {"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [init:1]", "lockup"},
        {"[    4.000000] rcu: INFO: rcu_preempt self-detected stall on CPU", "stall"},
        {"[    6.000000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100", "kill_init"},
        {"[    5.000000] Kernel panic - not syncing: VFS: Unable to mount root fs", "panic"},
        {"[    7.000000] Out of memory: Killed process 123 (x)", "oom"},
        {"[    1.000000] Internal error: Oops: 96000004 [#1] PREEMPT SMP", "oops"},
        {"[    1.000000] INFO: task kworker:12 blocked for more than 120 seconds.", "hung_task"},
        {"Oopsie is not an oops", ""},
        {"rcu: INFO: rcu_preempt grace period ended", ""}, // "INFO: rcu" without a stall after it
    };
    for (const auto& [line, kind] : cases) {
        const auto match = classify_kernel_line(line);
        EXPECT_EQ(match ? std::string(match->kind) : "", kind) << line;
    }
    const std::string bug = "[    2.000000] BUG: kernel NULL pointer dereference";
    EXPECT_EQ(bug.substr(classify_kernel_line(bug)->at), "BUG: kernel NULL pointer dereference");
}

// The two schemas that name the kinds (the guest's kernel record, the host's log section) list
// exactly these.
TEST(KernelEvents, SchemasNameEveryKind) {
    const std::vector<std::string> kinds(std::begin(kKernelEventKinds), std::end(kKernelEventKinds));
    const std::string dir = std::string(INITBENCH_SOURCE_DIR) + "/docs/schema/";
    const auto record = nlohmann::json::parse(std::ifstream(dir + "record-kernel.schema.json"));
    EXPECT_EQ(record["properties"]["kind"]["enum"].get<std::vector<std::string>>(), kinds);
    const auto results = nlohmann::json::parse(std::ifstream(dir + "results.schema.json"));
    // Every enum of a "kind" that names a panic: the log's kernel events, and nothing else.
    std::vector<std::vector<std::string>> enums;
    auto walk = [&](const nlohmann::json& j, auto& self) -> void {
        if (j.is_object()) {
            if (const auto kind = j.find("kind"); kind != j.end() && kind->is_object() && kind->contains("enum")) {
                auto names = (*kind)["enum"].get<std::vector<std::string>>();
                if (std::find(names.begin(), names.end(), "panic") != names.end())
                    enums.push_back(std::move(names));
            }
            for (const auto& [k, v] : j.items())
                self(v, self);
        } else if (j.is_array()) {
            for (const auto& v : j)
                self(v, self);
        }
    };
    walk(results, walk);
    EXPECT_EQ(enums, std::vector<std::vector<std::string>>{kinds});
}

} // namespace
} // namespace initbench
