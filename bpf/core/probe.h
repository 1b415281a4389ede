// What every instrument offers the experiment runner — the BPF probes here, and the perf
// counters — and when the runner calls it in each phase:
//   before_load()  the load is not started yet (counters that children inherit open here)
//   phase_begin()  the measurement window opens (after the warm-up)
//   sample()       at each of the phase's sampling points (samples.ops_per_s) in the window
//   window_end()   the window closes; the load still runs (snapshot here)
//   phase_end()    the load is stopped and reaped; returns the phase's result
// An instrument that cannot work on this kernel still exists and says why.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

struct bpf_object;

namespace initbench {

class Config;

// The attach fields every probe record shares: the mechanism when it is supported; the
// reason it is not, or why it fell back.
inline void describe_attach(nlohmann::json& d, bool supported, const std::string& mechanism,
                            const std::string& reason) {
    d["supported"] = supported;
    if (supported)
        d["mechanism"] = mechanism;
    if (!reason.empty())
        d[supported ? "fallback_reason" : "reason"] = reason;
}

class Probe {
public:
    virtual ~Probe() = default;
    virtual std::string name() const = 0;
    // How it is attached (mechanism, target), or "supported": false with the reason.
    virtual nlohmann::json describe() const = 0;
    virtual bool supported() const = 0;
    // Set when what the user asked for cannot be, e.g. a function that does not exist for a
    // probe the experiment's load depends on: the runner reports an error, not a warning.
    virtual std::string setup_error() const { return {}; }
    // The loaded BPF objects whose programs it runs (none for a probe that reads /proc or
    // counters): the runner reads their run statistics for the record's cost.
    virtual std::vector<const bpf_object*> bpf_objects() const { return {}; }
    virtual void before_load() {}
    virtual void phase_begin() = 0;
    virtual void sample() {}
    virtual void window_end() {}
    virtual nlohmann::json phase_end() = 0;
};

// bpf_objects() of a probe with one skeleton (a unique_ptr), none when it did not load.
// A libbpf skeleton that its X_bpf__destroy ends: Skeleton<floor_bpf, floor_bpf__destroy>.
template <typename S, void (*Destroy)(S*)> struct SkeletonDestroy {
    void operator()(S* skel) const { Destroy(skel); }
};
template <typename S, void (*Destroy)(S*)>
using Skeleton = std::unique_ptr<S, SkeletonDestroy<S, Destroy>>;

template <typename SkelPtr>
std::vector<const bpf_object*> skeleton_objects(const SkelPtr& skel) {
    if (!skel)
        return {};
    return {skel->obj};
}

// A kind of probe, defined as X_probe in its own bpf/X/X.cpp (the build lists every
// bpf/X/X_probe.h's, cmake/Catalog.cmake): `make` adds the
// probes the configuration asks for (none when it asks for none), each after setup_begin()
// (bpf/core/setup_times.h) so that the end record splits the set-up time per probe.
struct ProbeSpec {
    std::string_view name;
    void (*make)(const Config& config, std::vector<std::unique_ptr<Probe>>& out) = nullptr;
    // Metrics that need another probe's result of the same phase (kthread's ticks per span):
    // called with every probe's result once each phase_end() has returned. None for most.
    void (*combine)(nlohmann::json& phase_results) = nullptr;
    // Instead of `make`, for a probe that its own flag key turns on (softirq=1) and that needs
    // nothing else of the configuration: makes the one probe.
    std::unique_ptr<Probe> (*make_on_flag)() = nullptr;
};

// What the runner asks of each kind: the probes `spec` makes for `config`.
void make_probes_of(const ProbeSpec& spec, const Config& config,
                    std::vector<std::unique_ptr<Probe>>& out);

// In the order the runner makes, reads and reports them: their names'.
const std::vector<const ProbeSpec*>& probe_registry();

} // namespace initbench
