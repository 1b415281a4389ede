// The choice every function probe makes before load: fentry/fexit when the functions are
// in BTF and the kernel can attach there, kprobes otherwise (arm64 6.1 has no fentry), or
// "unsupported" with the reason from each attempt.
#pragma once

#include "bpf/core/libbpf_log.h"
#include "bpf/core/setup_times.h"

#include <bpf/libbpf.h>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

enum class Mechanism { fentry, kprobe };

// try_load(m, why) loads and attaches the probe's programs with mechanism m; on failure it
// sets `why`. mode is "auto", "fentry" or "kprobe" (forced). Returns the mechanism used, or
// nothing with `reason` saying why neither worked; `reason` also explains a fallback.
std::optional<Mechanism>
attach_functions(const std::vector<std::string>& functions, const std::string& mode,
                 const std::function<bool(Mechanism, std::string&)>& try_load, std::string& reason);

const char* mechanism_name(Mechanism m); // "fentry/fexit" | "kprobe/kretprobe"

// One kernel function hooked by a pair of programs in a skeleton: its fentry (or fexit)
// program and its kprobe (or kretprobe) twin; only the pair of the chosen mechanism loads.
struct FunctionHook {
    bpf_program* fentry;
    bpf_program* kprobe;
    bpf_link** kprobe_link; // the skeleton's slot, so that its destroy frees the link
    std::string function;
    bool retprobe = false;
};

// Before load: turns on the programs of mechanism m, and points the fentry ones at their
// functions.
void select_hooks(const std::vector<FunctionHook>& hooks, Mechanism m);
// After load, for kprobes (fentry programs attach with the skeleton): false + why.
bool attach_kprobes(const std::vector<FunctionHook>& hooks, std::string& why);

// What a function probe does once its skeleton is open and its hooks are named: select the
// mechanism's programs, load the skeleton, and attach (fentry programs through the
// skeleton's attach, kprobes one by one). Each step is timed; false with `why` naming it.
template <class Skel>
bool load_and_attach_hooks(Skel* skel, const std::vector<FunctionHook>& hooks, Mechanism m,
                           int (*load)(Skel*), int (*attach)(Skel*), const LibbpfLogCapture& log,
                           std::string& why) {
    std::optional<SetupStep> step(std::in_place, "target");
    select_hooks(hooks, m);
    step.emplace("load");
    if (int err = load(skel); err)
        return log.failed(why, "load", -err);
    step.emplace("attach");
    if (m == Mechanism::fentry) {
        if (int err = attach(skel); err)
            return log.attach_failed(why, -err);
    } else if (std::string kprobe_why; !attach_kprobes(hooks, kprobe_why)) {
        why = "attach: " + log.last_or(kprobe_why);
        return false;
    }
    return true;
}

} // namespace initbench
