#include "host/lab/kconfig.h"

#include "sys/sys.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace initbench {
namespace {

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur.push_back(c);
        }
    }
    out.push_back(cur);
    return out;
}

std::vector<std::string> words(const std::string& s) {
    std::istringstream in(s);
    return {std::istream_iterator<std::string>(in), {}};
}

// Options a loadable module cannot stand in for: the image has no modules of its own.
bool enabled(const std::map<std::string, std::string>& config, const std::string& option) {
    auto it = config.find(option);
    return it != config.end() && it->second == "y";
}

// "console-arm64" applies only to arm64 kernels; rows without an arch suffix to all.
bool applies(const std::string& feature, const std::map<std::string, std::string>& config) {
    if (feature.ends_with("-x86_64"))
        return enabled(config, "X86_64");
    if (feature.ends_with("-arm64"))
        return enabled(config, "ARM64");
    return true;
}

} // namespace

std::vector<FeatureRow> parse_feature_table(std::string_view tsv) {
    std::vector<FeatureRow> rows;
    std::istringstream in{std::string(tsv)};
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        auto cols = split(line, '\t');
        if (cols.size() != 4)
            throw std::runtime_error("feature table: expected 4 tab-separated columns: " + line);
        rows.push_back({cols[0], words(cols[1]), cols[2] == "-" ? "" : cols[2], cols[3]});
    }
    return rows;
}

std::vector<FeatureVerdict> check_kernel_config(const std::vector<FeatureRow>& table,
                                                const std::map<std::string, std::string>& config) {
    std::map<std::string, const FeatureRow*> by_name;
    for (const auto& r : table)
        by_name[r.name] = &r;
    auto missing_of = [&](const FeatureRow& r) {
        std::vector<std::string> m;
        for (const auto& o : r.options)
            if (!enabled(config, o))
                m.push_back(o);
        return m;
    };
    std::vector<FeatureVerdict> out;
    for (const auto& row : table) {
        if (!applies(row.name, config))
            continue;
        FeatureVerdict v{row.name, "works", missing_of(row), ""};
        // Follow the fallback chain to the first feature that works.
        for (const FeatureRow* r = &row; !v.missing.empty() || r != &row;) {
            if (r != &row && missing_of(*r).empty()) {
                v.status = "degrades";
                v.detail = "falls back to " + r->name;
                break;
            }
            if (r->fallback.empty() || !by_name.count(r->fallback)) {
                v.status = "unsupported";
                v.detail = row.loss;
                break;
            }
            r = by_name[r->fallback];
        }
        out.push_back(std::move(v));
    }
    return out;
}

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
