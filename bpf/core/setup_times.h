// Where the probes' set-up time goes (issue 12): each probe's steps (vmlinux BTF, kallsyms,
// open, load, attach) for the end record's overhead.probe_setup. Set-up runs on one thread,
// before the first phase.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace initbench {

// The probe whose steps follow, e.g. "funclat kernel_clone"; ends the previous probe's
// entry, whose total is the time since its own setup_begin().
void setup_begin(std::string probe);
// Closes the last entry (call once after the last probe).
void setup_end();
// Adds seconds to a step of the current probe.
void setup_add(const char* step, double seconds);

// Times its scope into a step of the current probe.
class SetupStep {
public:
    explicit SetupStep(const char* step);
    ~SetupStep();
    SetupStep(const SetupStep&) = delete;
    SetupStep& operator=(const SetupStep&) = delete;

private:
    const char* step_;
    double start_;
};

// {"btf_s": …, "load_s": …, …, "probes": [{"probe": …, "total_s": …, "btf_s": …}, …]}:
// the steps summed over the probes, then each probe's own, with "other_s" for what no step
// covers.
nlohmann::json setup_times_json();

} // namespace initbench
