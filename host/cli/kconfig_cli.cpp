#include "host/cli/kconfig_cli.h"

#include "host/lab/kconfig.h"
#include "sys/sys.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <set>

namespace initbench {

void add_kconfig_command(CLI::App& app) {
    auto* kconfig = app.add_subcommand("kconfig", "Kernel configuration: what initbench can do with a kernel");
    kconfig->require_subcommand(1);
    auto path = std::make_shared<std::string>();
    auto* check = kconfig->add_subcommand("check", "Read a kernel .config and say, feature by feature, what will "
                                                   "work, degrade or be unsupported, and which options to add");
    check->add_option("config", *path, "The kernel's .config")->required()->check(CLI::ExistingFile);
    check->footer(R"(Exit codes:
  0  every feature works
  1  some features degrade or are unsupported
  2  bad command line, or a .config that cannot be read or has no CONFIG_ lines
  3  initbench cannot boot this kernel (no boot or console support))");
    check->callback([path] {
        auto text = read_whole_file(*path);
        if (!text)
            throw CLI::RuntimeError("initbench: " + text.error().message(), 2);
        auto config = parse_kernel_config(text.value());
        if (config.empty())
            throw CLI::RuntimeError("initbench: " + *path + " has no CONFIG_ lines", 2);
        auto verdicts = check_kernel_config(parse_feature_table(builtin_feature_table()), config);
        std::set<std::string> to_add;
        bool all_work = true, boots = true;
        for (const auto& v : verdicts) {
            std::cout << v.feature << std::string(v.feature.size() < 20 ? 20 - v.feature.size() : 1, ' ')
                      << v.status;
            if (!v.missing.empty()) {
                std::cout << "  (missing";
                for (const auto& m : v.missing) {
                    std::cout << " CONFIG_" << m;
                    to_add.insert(m);
                }
                std::cout << ")";
            }
            if (!v.detail.empty())
                std::cout << ": " << v.detail;
            std::cout << "\n";
            all_work = all_work && v.status == "works";
            boots = boots && !(v.status == "unsupported" && (v.feature == "boot" || v.feature.starts_with("console")));
        }
        if (!to_add.empty()) {
            std::cout << "\nadd to the config (see kconfig/initbench.config):\n";
            for (const auto& o : to_add)
                std::cout << "CONFIG_" << o << "=y\n";
        }
        // 0: everything works; 1: some features degrade or are unsupported; 3: it cannot boot.
        if (!boots)
            throw CLI::RuntimeError(3);
        if (!all_work)
            throw CLI::RuntimeError(1);
    });
}

} // namespace initbench
