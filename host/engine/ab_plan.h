// `initbench ab`'s plan: the sides its options describe, and the output directory that holds
// one plan's boots (a rerun resumes only where the plan is the same).
#pragma once

#include "common/result.h"
#include "host/boot/boot.h"
#include "host/boot/boot_options.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace initbench {

struct AbCli {
    std::vector<std::string> kernels, side_params, labels, metrics, params;
    std::string out_dir, method = "auto";
    BootOptions boot; // every side's, as `initbench run` takes them
    unsigned min_boots = 0, max_boots = 10, jobs = 0; // min_boots 0: for the method (first_look)
    double confidence = 0.95, min_effect_pct = 5;
    bool force = false; // compare sides whose initbench.* settings differ
};

struct SidePlan {
    std::string label, kernel;
    std::vector<std::string> params;
    RunOptions run; // how each of its boots boots (run_ab plans it before the first)
};

// The sides the options describe, or why they describe none.
Result<std::vector<SidePlan>> plan_sides(const AbCli& cli);

// The first initbench.* setting in which a side's parameters differ from the first side's
// ("B sets initbench.fork.spin_us=119, A does not"), or "": sides that differ there run
// different experiments, which ab compares only with --force.
std::string experiment_difference(const std::vector<SidePlan>& sides);

// What must match for a rerun to resume: the sides, their kernels' bytes, the image, and how
// they are booted and judged. The budget, --jobs and --timeout may change.
nlohmann::json plan_document(const AbCli& cli, const std::vector<SidePlan>& sides);

// How many boots run at once: `asked` (-j), or when 0, one per guest_cpus of the host's CPUs
// under icount (TCG's thread per vCPU; the figures do not depend on the host) and one on any
// other clock: boots at once on CPUs of different speeds would give one side the slower CPUs
// more often under a greedy schedule (the faster CPU's boots end first), and they slow each
// other. Asked for there, ab balances them (SlotSchedule's fixed slots); `warning` says so.
struct BootsAtOnce {
    unsigned jobs = 1;
    std::string warning;
};
BootsAtOnce boots_at_once(unsigned asked, const std::string& clock, size_t host_cpus, unsigned guest_cpus);

// The host CPUs each of `jobs` boots at once runs on: guest_cpus of them a boot, from the end
// of `allowed` (CPU 0 takes most of the host's own work), or no pinning at all (empty sets)
// when they do not fit. Host CPUs can differ in speed for a whole run (on a cloud machine one
// of two ran 40 % slower than the other, alone or not): a boot left to float lands on either
// and its figures split in two; pinned, every boot of a slot runs on the same CPUs.
std::vector<std::vector<unsigned>> host_cpu_slots(unsigned jobs, unsigned guest_cpus,
                                                  const std::vector<unsigned>& allowed);

// How many host CPU sets compare permutes within (compare_sides finds every side on each):
// one a distinct slot when the slots are fixed (slot_of_boot), else one.
size_t host_cpu_strata(const std::vector<std::vector<unsigned>>& slots, bool fixed_slots);

// A new output directory gets the plan; an old one must hold the same plan.
Status claim_directory(const std::filesystem::path& dir, const nlohmann::json& plan);

} // namespace initbench
