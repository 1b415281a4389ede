#include "bpf/core/setup_times.h"

#include "sys/sys.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace initbench {
namespace {

struct Entry {
    std::string probe;
    double start = 0, total = 0;
    bool open = true;
    std::vector<std::pair<std::string, double>> steps; // in first-seen order
};

std::vector<Entry>& entries() {
    static std::vector<Entry> e;
    return e;
}

void close_last() {
    auto& e = entries();
    if (!e.empty() && e.back().open) {
        e.back().total = monotonic_seconds() - e.back().start;
        e.back().open = false;
    }
}

// Microseconds are plenty, and keep the end record short on a serial console.
double us(double s) { return std::round(s * 1e6) / 1e6; }

} // namespace

void setup_begin(std::string probe) {
    close_last();
    entries().push_back({std::move(probe), monotonic_seconds(), 0, true, {}});
}

void setup_end() { close_last(); }

void setup_add(const char* step, double seconds) {
    auto& e = entries();
    if (e.empty())
        e.push_back({"(none)", monotonic_seconds(), 0, true, {}});
    for (auto& [name, s] : e.back().steps)
        if (name == step) {
            s += seconds;
            return;
        }
    e.back().steps.emplace_back(step, seconds);
}

SetupStep::SetupStep(const char* step) : step_(step), start_(monotonic_seconds()) {}
SetupStep::~SetupStep() { setup_add(step_, monotonic_seconds() - start_); }

nlohmann::json setup_times_json() {
    close_last();
    nlohmann::json out = nlohmann::json::object();
    nlohmann::json probes = nlohmann::json::array();
    for (const auto& e : entries()) {
        nlohmann::json p{{"probe", e.probe}, {"total_s", us(e.total)}};
        double covered = 0;
        for (const auto& [name, s] : e.steps) {
            p[name + "_s"] = us(s);
            covered += s;
            out[name + "_s"] = us(out.value(name + "_s", 0.0) + s);
        }
        p["other_s"] = us(std::max(0.0, e.total - covered));
        probes.push_back(std::move(p));
    }
    out["probes"] = std::move(probes);
    return out;
}

} // namespace initbench
