// `initbench ab`'s plan: the sides its options describe, and the output directory that holds
// one plan's boots (a rerun resumes only where the plan is the same).
#pragma once

#include "common/result.h"
#include "host/boot/boot_options.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace initbench {

struct AbCli {
    std::vector<std::string> kernels, side_params, labels, metrics, params;
    std::string out_dir, method = "welch";
    BootOptions boot; // every side's, as `initbench run` takes them
    unsigned min_boots = 2, max_boots = 10, jobs = 0;
    double confidence = 0.95, min_effect_pct = 5;
    bool force = false; // compare sides whose initbench.* settings differ
};

struct SidePlan {
    std::string label, kernel;
    std::vector<std::string> params;
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

// A new output directory gets the plan; an old one must hold the same plan.
Status claim_directory(const std::filesystem::path& dir, const nlohmann::json& plan);

} // namespace initbench
