// `initbench kconfig check CONFIG`: what will work, degrade or be unsupported with a kernel
// built from that .config, feature by feature (kconfig/features.tsv), and what to add.
#pragma once

#include "host/base/kernel_config.h" // parse_kernel_config: the .config a check reads

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

struct FeatureRow {
    std::string name;
    std::vector<std::string> options; // without CONFIG_
    std::string fallback;             // feature used without these options, "" for none
    std::string loss;                 // what the user loses
};

std::vector<FeatureRow> parse_feature_table(std::string_view tsv);

struct FeatureVerdict {
    std::string feature;
    std::string status;               // works | degrades | unsupported
    std::vector<std::string> missing; // options not set to y (or m where a module can serve)
    std::string detail;               // the fallback used, or what is lost
};

std::vector<FeatureVerdict> check_kernel_config(const std::vector<FeatureRow>& table,
                                                const std::map<std::string, std::string>& config);

// The table built into the CLI (kconfig/features.tsv at build time).
std::string_view builtin_feature_table();

} // namespace initbench
