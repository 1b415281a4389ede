// A probe's per-CPU array entry (key 0) from user space: one T per possible CPU. The probes
// zero it when a phase begins and sum it when the window ends.
#pragma once

#include "common/result.h"

#include <algorithm>
#include <bpf/libbpf.h>
#include <cstdint>
#include <vector>

namespace initbench {

inline size_t possible_cpus() { return static_cast<size_t>(std::max(1, libbpf_num_possible_cpus())); }

template <typename T>
Status zero_per_cpu(const bpf_map* map) {
    std::vector<T> zero(possible_cpus());
    uint32_t key = 0;
    if (int err = bpf_map__update_elem(map, &key, sizeof key, zero.data(), zero.size() * sizeof(T), BPF_ANY))
        return Error{"zeroing the per-CPU counts", -err};
    return ok();
}

// zero_per_cpu as a phase_begin keeps it: "" when zeroed, else why not (the window's
// counts are then reported as an error, not as numbers).
template <typename T>
std::string zero_per_cpu_why(const bpf_map* map) {
    auto zeroed = zero_per_cpu<T>(map);
    return zeroed ? std::string() : zeroed.error().message();
}

template <typename T>
Result<std::vector<T>> read_per_cpu(const bpf_map* map) {
    std::vector<T> per_cpu(possible_cpus());
    uint32_t key = 0;
    if (int err = bpf_map__lookup_elem(map, &key, sizeof key, per_cpu.data(), per_cpu.size() * sizeof(T), 0))
        return Error{"reading the per-CPU counts", -err};
    return per_cpu;
}

} // namespace initbench
