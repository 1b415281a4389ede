// A load: work done by forked worker processes while a phase runs. The framework
// (init/load_group) owns time: it forks the workers, lets them run, kills and reaps them.
// A load's worker only does work and counts operations.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

// What a worker sees: its index and its own operation counter in memory shared with init.
struct WorkerContext {
    unsigned index = 0;
    unsigned workers = 1;
    std::atomic<uint64_t>* ops = nullptr;
    void count(uint64_t n = 1) const { ops->fetch_add(n, std::memory_order_relaxed); }
};

struct LoadSpec {
    std::string_view name;
    std::string_view help;
    std::string_view op_unit;       // what one operation is: "loop", "fork", ...
    unsigned (*default_workers)();  // when the experiment does not say
    std::string (*unsupported)();   // "" when this kernel can run it, else why not
    void (*work)(const WorkerContext&); // never returns: the framework kills the worker
};

const std::vector<const LoadSpec*>& load_registry();
const LoadSpec* find_load(std::string_view name);

unsigned online_cpus();
std::string always_supported();

} // namespace initbench
