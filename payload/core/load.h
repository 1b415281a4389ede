// A load: work done by forked worker processes while a phase runs. The framework
// (payload/core/load_group) owns time: it forks the workers, pins them, limits them, lets them run,
// kills and reaps them. A load's worker only does work and counts operations.
//
// Loads are plain POSIX C++: the same files build into PID 1 (clang, musl) and into the
// host tool initbench-loadbench (g++, glibc).
#pragma once

#include "common/load_decl.h"

#include <any>
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <string>
#include <string_view>
#include <time.h>
#include <vector>

namespace initbench {

class Config;
struct ConfigError;

// What a phase's load is told, resolved from the configuration before the phase starts
// (resolve_params), so that no load parses anything: the framework's part, its workers, and
// the load's own, which the load's configure() reads from its keys into a struct of its own
// (declared in its payload/X.cpp, read back with own_params<T>) and shows in the phase
// record's "params".
struct LoadParams {
    unsigned workers = 1; // worker processes; pipe: groups; tcp: client/server pairs
    std::any own;         // the load's own parameters: its struct, or empty
    nlohmann::json shown = nlohmann::json::object(); // them as the phase record shows them
};

// The load's own parameters, as its configure() stored them.
template <typename T>
const T& own_params(const LoadParams& p) {
    return std::any_cast<const T&>(p.own);
}

// One worker's counters, in memory shared by all the worker's tasks and the framework.
// A cache line each: workers must not contend on each other's counts.
struct alignas(64) WorkerSlot {
    std::atomic<uint64_t> ops{0};
    // CLOCK_MONOTONIC ns when the latest counted operation ended; ready() sets it once, when
    // the first began. A window's rate is then whole operations over the time they took.
    std::atomic<uint64_t> last_op_ns{0};
    std::atomic<uint64_t> failures{0}; // task creations refused (task limit, memory)
    std::atomic<uint32_t> ready{0};    // set up and running: the measurement may begin
};

// What a worker sees: its index, the parameters and its slot.
struct WorkerContext {
    unsigned index = 0;
    const LoadParams* params = nullptr;
    WorkerSlot* slot = nullptr;
    template <typename T>
    const T& own() const { return own_params<T>(*params); }
    void count(uint64_t n = 1) const {
        slot->ops.fetch_add(n, std::memory_order_relaxed);
        slot->last_op_ns.store(now_ns(), std::memory_order_relaxed);
    }
    void failed() const { slot->failures.fetch_add(1, std::memory_order_relaxed); }
    void ready() const {
        // Only the first start: after a respawn (churn) the time without a worker counts.
        uint64_t never = 0;
        slot->last_op_ns.compare_exchange_strong(never, now_ns(), std::memory_order_relaxed);
        slot->ready.store(1, std::memory_order_release);
    }
    static uint64_t now_ns() {
        timespec ts{};
        ::clock_gettime(CLOCK_MONOTONIC, &ts);
        return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
    }
};

unsigned online_cpus();
std::string always_supported();
uint64_t one_task_per_worker(const LoadParams& p);

// A load as the registry lists it: its declaration (payload/X/load.json) and its code. A
// load's file names its work; the rest has defaults that most loads keep: a worker per CPU,
// runs on any kernel, one task per worker, moves no data, no keys of its own.
struct LoadSpec {
    LoadDecl decl;
    std::string_view name() const { return decl.name; }
    std::string_view op_unit() const { return decl.op_unit; }
    std::string_view sweep() const { return decl.sweep; }
    unsigned (*default_workers)() = online_cpus;            // when neither the sweep nor `workers` says
    std::string (*unsupported)() = always_supported;        // "" when this kernel can run it, else why not
    uint64_t (*tasks)(const LoadParams&) = one_task_per_worker; // tasks at once, workers included
    uint64_t (*bytes_per_op)(const LoadParams&) = nullptr;  // null: the load moves no data
    void (*configure)(const Config&, LoadParams&) = nullptr; // reads the load's own keys: own, shown
    void (*work)(const WorkerContext&) = nullptr;           // never returns: the framework kills it
};

// Every built-in load (each payload/X/'s X_load, in their names' order).
const std::vector<const LoadSpec*>& load_registry();
const LoadSpec* find_load(std::string_view name);

// The number of a system call the loads may make (syscall.name, sleep.syscall), or -1.
long syscall_number(std::string_view name);

// The values of a load's sweep key, or {0} for a load without one.
std::vector<unsigned> sweep_values(const LoadSpec& spec, const Config& config);
// The parameters of one phase of `spec`; `sweep_value` is one of sweep_values().
LoadParams resolve_params(const LoadSpec& spec, const Config& config, unsigned sweep_value);
// The parameters as a record shows them: the workers and what the load shows of its own.
nlohmann::json params_json(const LoadParams& p);

// A load's configure() shows its own parameters through this, by its declaration
// (payload/X/load.json): a name the declaration lacks, or a choice not among its values, goes
// under "undeclared" instead, which the results schema refuses, so that a test fails.
void show(LoadParams& p, const LoadDecl& decl, const nlohmann::json& values);
// A phase's loads: one load's name, or registered loads joined by '+' ("sleep+syscall"), run
// together in one window. Each part at most once and none with a sweep key. Empty, and
// `why` says what is wrong (naming the part), when the name is not that.
std::vector<const LoadSpec*> phase_loads(std::string_view name, std::string& why);
// What the init refuses in `phases`, found as it would (the external loads defined first): for
// the host to check a command line before the boot.
std::vector<ConfigError> check_phases(const Config& config);

// Shared by the loads.
// Creates a thread with a small stack; an errno value when the kernel refuses, else 0.
int start_thread(void* (*fn)(void*), void* arg, size_t stack_bytes, pthread_t* id);
// Forks until it succeeds, counting refusals and backing off; returns 0 in the child.
int fork_retrying(const WorkerContext& ctx);
// For a worker whose tasks are processes: waits until one of them ends, then leaves with
// its status (128 + N if killed by signal N), so that the framework sees the loss. The
// worker's tasks must have asked for PR_SET_PDEATHSIG (die_with_parent).
[[noreturn]] void supervise_children();
// In a task forked by a worker: dies when the worker does.
void die_with_parent(pid_t parent);
// A gate on a futex word, also across processes (MAP_SHARED): waiters sleep while it is 0.
void wait_for_gate(std::atomic<uint32_t>& gate);
void open_gate(std::atomic<uint32_t>& gate);

} // namespace initbench
