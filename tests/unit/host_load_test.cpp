// Unit tests of the host's load beside a boot (host/base/host_load: /proc/stat's busy time
// less the boot's own) and of the child's CPU time that run_child records for it.
#include "host/base/host_load.h"
#include "host/base/process.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

TEST(HostLoad, BusyAndTotalFromProcStat) {
    // user nice system idle iowait irq softirq steal guest guest_nice, in ticks of 100 a second.
    const auto t = parse_host_cpu_time("cpu  1000 200 300 5000 100 10 20 30 400 0\ncpu0 1 2 3 4\n", 100);
    ASSERT_TRUE(t) << t.error().message();
    EXPECT_DOUBLE_EQ(t.value().busy_s, 15.6) << "user, nice, system, irq, softirq, steal; guest is inside user";
    EXPECT_DOUBLE_EQ(t.value().total_s, 66.6) << "and idle and iowait";
    // Kernels before steal (2.6.11) stop early; what is there is counted.
    const auto old = parse_host_cpu_time("cpu 100 0 50 850", 100);
    ASSERT_TRUE(old);
    EXPECT_DOUBLE_EQ(old.value().busy_s, 1.5);
    EXPECT_DOUBLE_EQ(old.value().total_s, 10);
    EXPECT_FALSE(parse_host_cpu_time("intr 1 2 3 4 5", 100)) << "the cpu line comes first";
    EXPECT_FALSE(parse_host_cpu_time("cpu 1 2 3", 100)) << "too few figures";
    EXPECT_TRUE(mark_host_load()) << "this host's /proc/stat";
}

TEST(HostLoad, OtherWorkIsTheBusyTimeLessTheBootsOwn) {
    HostLoadMark before{{100, 400}, 1.0, 50}, after{{103, 404}, 1.2, 52};
    // 3 s busy in 2 s: QEMU 1 s, this process 0.2 s, the rest 1.8 s of other work.
    EXPECT_DOUBLE_EQ(others_busy_cpus(before, after, 1.0).value(), 0.9);
    // Ticks round the host's figures: never below nothing.
    EXPECT_DOUBLE_EQ(others_busy_cpus(before, after, 3.5).value(), 0);
    EXPECT_FALSE(others_busy_cpus(after, before, 1.0)) << "no time between the readings";
}

TEST(HostLoad, RunChildRecordsTheChildsCpuTime) {
    ChildRun r;
    r.argv = {"/bin/sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"};
    const ChildOutcome o = run_child(r);
    ASSERT_EQ(o.end, ChildOutcome::End::exited);
    EXPECT_GT(o.cpu_s, 0.01) << "a busy child's CPU time, from wait4";
    EXPECT_LT(o.cpu_s, o.wall_s * 1.5 + 0.05) << "one thread: no more CPU time than wall time";
    ChildRun killed = r;
    killed.argv = {"/bin/sh", "-c", "exec sleep 30"};
    killed.timeout_s = 0.3;
    EXPECT_LT(run_child(killed).cpu_s, 0) << "a child that was killed: not measured";
}

} // namespace
} // namespace initbench
