// What else ran on the host while a boot did: the host's busy CPU time (/proc/stat) less the
// boot's own (QEMU's, from its rusage, and this process's), over the boot's wall time. On the
// wall clock other work can slow a boot even from other CPUs (caches, memory, I/O, kernel
// threads that run anywhere), so every results document says how much there was
// (host.others_busy_cpus) and compare warns of it.
#pragma once

#include "common/result.h"

#include <string_view>

namespace initbench {

// The host's CPU time in seconds, summed over its CPUs: busy (user, nice, system, irq,
// softirq, steal; guest time is inside user and nice) and in all (idle and iowait too).
struct HostCpuTime {
    double busy_s = 0, total_s = 0;
};

// /proc/stat's first line ("cpu  user nice system idle iowait irq softirq steal ..."), its
// figures in ticks of ticks_per_s (USER_HZ).
Result<HostCpuTime> parse_host_cpu_time(std::string_view proc_stat, double ticks_per_s);

// A reading to take before a boot: the host's CPU time, this process's own, and the time.
struct HostLoadMark {
    HostCpuTime host;
    double self_cpu_s = 0;
    double at_s = 0; // CLOCK_MONOTONIC
};
Result<HostLoadMark> mark_host_load();

// CPUs' worth of other work on the host between two readings: the host's busy time less
// child_cpu_s (the boot's QEMU) and this process's own, over the time between. At least 0
// (the host's figures are counted in ticks, the processes' more finely).
Result<double> others_busy_cpus(const HostLoadMark& before, const HostLoadMark& after, double child_cpu_s);

} // namespace initbench
