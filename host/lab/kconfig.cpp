#include "host/lab/kconfig.h"

#include "sys/sys.h"

#include <fstream>
#include <iterator>
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

} // namespace initbench
