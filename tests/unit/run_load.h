// Runs a load natively for the loads' unit tests: its parameters from kernel-parameter text,
// started in its own process group (no cgroup), and a wait for its operations; what the
// configuration refuses, and the CPUs online.
#pragma once

#include "common/config.h"
#include "payload/core/load.h"
#include "payload/core/load_group.h"
#include "sys/sys.h"

#include <gtest/gtest.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>

namespace initbench::testing_loads {

// The reason the configuration refuses `param` for, or "".
inline std::string refusal(const std::string& param) {
    ConfigResult r = parse_config(param, nullptr);
    return r.errors.empty() ? "" : r.errors[0].reason;
}

// The CPUs /sys says are online: what a load's default worker count must follow.
inline unsigned cpus_online_from_sysfs() {
    std::ifstream in("/sys/devices/system/cpu/online");
    std::string list;
    std::getline(in, list);
    unsigned n = 0;
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) {
        const auto dash = item.find('-');
        n += dash == std::string::npos ? 1 : std::stoul(item.substr(dash + 1)) - std::stoul(item) + 1;
    }
    return n;
}

inline Config config_of(const std::string& params) {
    ConfigResult r = parse_config(params, nullptr);
    EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0].describe());
    return r.config;
}

// Starts `name` with the parameters `params` resolve to.
inline std::unique_ptr<LoadGroup> start_load(const std::string& name, const std::string& params) {
    const LoadSpec& spec = *find_load(name);
    const Config c = config_of(params);
    auto started = LoadGroup::start(spec, resolve_params(spec, c, sweep_values(spec, c)[0]), {});
    EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.error().message());
    return started.ok() ? std::move(started.value()) : nullptr;
}

// Counting is what is tested, not speed: waits for `n` operations, however slow.
inline bool wait_for_ops(const LoadGroup& group, uint64_t n, double limit_s = 20) {
    const double deadline = monotonic_seconds() + limit_s;
    while (group.total_ops() < n && monotonic_seconds() < deadline)
        ::usleep(10000);
    return group.total_ops() >= n;
}

} // namespace initbench::testing_loads
