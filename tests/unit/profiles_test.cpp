// The profiles shipped in the image (init/profiles/), each read as the init reads it and
// checked against the mailing-list experiment it reproduces: its phases, machine and each
// load's parameters as resolved on this host.
#include "common/config.h"
#include "sys/sys.h"
#include "payload/core/load.h"
#include "run_load.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace initbench {
namespace {

using testing_loads::cpus_online_from_sysfs;

std::optional<std::string> shipped_profile(std::string_view name) {
    auto text = read_file(std::string(INITBENCH_SOURCE_DIR) + "/init/profiles/" +
                          std::string(name) + ".conf");
    return text ? std::optional<std::string>(text.value()) : std::nullopt;
}

TEST(Profiles, MmCid) {
    ConfigResult r = parse_config("initbench.profile=mm_cid initbench.duration=2", shipped_profile);
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    EXPECT_EQ(r.config.list("phases"), (std::vector<std::string>{"none", "cpu", "fork", "thread"}));
    EXPECT_EQ(r.config.uint("machine.cpus"), 128u);
    EXPECT_EQ(r.config.seconds("rest"), 30.0);
    // $nproc workers: one per CPU of the machine it runs on.
    LoadParams thread = resolve_params(*find_load("thread"), r.config, 0);
    EXPECT_EQ(thread.workers, cpus_online_from_sysfs());
    EXPECT_EQ(params_json(thread)["threads"], 4);
    EXPECT_EQ(params_json(thread)["mode"], "batch"); // as stress-ng --pthread-max makes them
    EXPECT_EQ(params_json(resolve_params(*find_load("cpu"), r.config, 0))["cpu_load_pct"], 80);
    EXPECT_EQ(r.config.seconds("duration"), 2.0);
}

TEST(Profiles, PageFrag) {
    ConfigResult r = parse_config("initbench.profile=page_frag", shipped_profile);
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    // perf stat -r 200 insmod ./page_frag_test.ko test_push_cpu=16 test_pop_cpu=17 ...
    EXPECT_EQ(r.config.str("module"), "/payload/page_frag_test.ko");
    EXPECT_EQ(r.config.str("module.params"),
              "test_push_cpu=16 test_pop_cpu=17 test_alloc_len=12 nr_test=51200000");
    EXPECT_EQ(r.config.str("cmd"), ""); // one finit_module per repeat, not BusyBox's insmod
    EXPECT_EQ(r.config.uint("repeat"), 200u);
    EXPECT_EQ(r.config.list("perf"), std::vector<std::string>{"default"});
    EXPECT_EQ(r.config.str("pin"), ""); // the module binds its own kthreads
    // Its kthreads are bound to CPUs 16 and 17: the machine needs 18.
    EXPECT_GE(r.config.uint("machine.cpus"), 18u);
}

// The seed: an 8-CPU VM, 15 000 forked processes that each call getpgid() and sleep, the
// storage churned from the system call's entry, the grace-period span and kthread ticks.
TEST(Profiles, RcuTasksTrace) {
    ConfigResult r = parse_config("initbench.profile=rcu_tasks_trace", shipped_profile);
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    EXPECT_EQ(r.config.uint("machine.cpus"), 8u);
    LoadParams sleep = resolve_params(*find_load("sleep"), r.config, 0);
    EXPECT_EQ(params_json(sleep)["sleepers"], 15000);
    EXPECT_EQ(params_json(sleep)["interval_s"], 4.0); // not the seed's 1.5 s mean: see the profile
    EXPECT_EQ(r.config.str("sleep.mode"), "process");
    EXPECT_EQ(r.config.str("sleep.syscall"), "getpgid");
    EXPECT_EQ(r.config.str("task_storage_churn.on"), "syscall:getpgid");
    EXPECT_EQ(r.config.str("span"), "rcu_tasks_trace_pregp_step:rcu_tasks_trace_postgp");
    EXPECT_EQ(r.config.list("kthread"), std::vector<std::string>{"rcu_tasks_trace*"});
}

TEST(Profiles, SisTbench) {
    ConfigResult r = parse_config("initbench.profile=sis_tbench", shipped_profile);
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    EXPECT_EQ(r.config.list("phases"), std::vector<std::string>{"tcp"});
    // 1, doubling, up to twice the CPUs of the machine it runs on (here: this host's).
    std::vector<unsigned> expected;
    for (unsigned n = 1; n < 2 * cpus_online_from_sysfs(); n *= 2)
        expected.push_back(n);
    expected.push_back(2 * cpus_online_from_sysfs());
    EXPECT_EQ(sweep_values(*find_load("tcp"), r.config), expected);
    EXPECT_EQ(r.config.uint("machine.cpus"), 8u);
    EXPECT_EQ(r.config.str("machine.topology"), "1:4:2");
    EXPECT_EQ(r.config.uint("rounds"), 5u);
}

} // namespace
} // namespace initbench
