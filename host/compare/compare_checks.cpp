#include "host/compare/compare_checks.h"

#include "common/text.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace initbench {

std::string kernel_params(const std::string& cmdline) {
    std::istringstream in(cmdline);
    std::string word, out;
    // lpj= is the delay loop's calibration, which run works out from the host's TSC
    // (host/boot/delay_loop.h): a fact of the host, not of the kernel or the experiment.
    while (in >> word)
        if (word.rfind("initbench.", 0) != 0 && word.rfind("lpj=", 0) != 0)
            out += (out.empty() ? "" : " ") + word;
    return out;
}

namespace {

using nlohmann::json;

// "duration: 1 vs 2; phases: ["fork"] vs ["none","fork"]" for two experiments.
std::string describe_difference(const json& a, const json& b) {
    std::vector<std::string> parts;
    auto walk = [&](const json& x, const json& y, const std::string& prefix, auto& self) -> void {
        std::set<std::string> keys;
        for (const auto& [k, v] : x.items())
            keys.insert(k);
        for (const auto& [k, v] : y.items())
            keys.insert(k);
        for (const auto& k : keys) {
            json vx = x.contains(k) ? x[k] : json(), vy = y.contains(k) ? y[k] : json();
            if (vx == vy)
                continue;
            if (vx.is_object() && vy.is_object())
                self(vx, vy, prefix + k + ".", self);
            else
                parts.push_back(prefix + k + ": " + (vx.is_null() ? "unset" : vx.dump()) + " vs " +
                                (vy.is_null() ? "unset" : vy.dump()));
        }
    };
    walk(a, b, "", walk);
    std::string out;
    for (size_t i = 0; i < parts.size() && i < 6; i++)
        out += (i ? "; " : "") + parts[i];
    if (parts.size() > 6)
        out += "; ...";
    return out;
}

std::string clock_name(const RunFile& r) {
    return r.clock_detail.empty() ? r.clock : r.clock + " (-icount " + r.clock_detail + ")";
}

Status check_clocks(const std::vector<Side>& sides, const CompareOptions& options,
                    std::vector<std::string>& warnings) {
    const RunFile& first = sides[0].runs[0];
    for (const auto& side : sides)
        for (const auto& run : side.runs) {
            if (run.clock == first.clock && run.clock_detail == first.clock_detail)
                continue;
            std::string why = "different clocks: " + first.path + " ran on " + clock_name(first) +
                              ", " + run.path + " on " + clock_name(run);
            // Instruction-counted time and real time are different units: never comparable.
            if (run.clock == "icount" || first.clock == "icount" || !options.force)
                return Error{why};
            warnings.push_back(why + " (compared anyway: --force)");
        }
    return ok();
}

Status check_experiments(const std::vector<Side>& sides, const CompareOptions& options,
                         std::vector<std::string>& warnings) {
    const RunFile& first = sides[0].runs[0];
    for (const auto& side : sides)
        for (const auto& run : side.runs) {
            if (run.experiment == first.experiment)
                continue;
            std::string why = "different experiments: " + first.path + " and " + run.path +
                              " differ in " + describe_difference(first.experiment, run.experiment);
            if (!options.force)
                return Error{why + " (--force compares them anyway)"};
            warnings.push_back(why + " (compared anyway: --force)");
        }
    return ok();
}

void identity_warnings(const std::vector<Side>& sides, std::vector<std::string>& warnings) {
    std::map<std::string, std::string> seen_run_ids;
    for (const auto& side : sides)
        for (const auto& run : side.runs) {
            if (run.run_id.empty())
                continue;
            auto [it, fresh] = seen_run_ids.try_emplace(run.run_id, run.path);
            if (!fresh)
                warnings.push_back(it->second + " and " + run.path + " carry the same run id " +
                                   run.run_id + ": one run counted twice?");
        }
    auto kernel_of = [](const RunFile& r) {
        return r.build_id + "|" + r.image_sha256 + "|" + kernel_params(r.cmdline);
    };
    for (const auto& side : sides) {
        std::set<std::string> kernels;
        for (const auto& run : side.runs) {
            kernels.insert(kernel_of(run));
            if (run.verdict != "ok")
                warnings.push_back(run.path + ": the run reported error records");
            if (run.kernel_events)
                warnings.push_back(run.path + ": " + std::to_string(run.kernel_events) +
                                   " kernel WARN/oops/BUG record(s)");
        }
        if (kernels.size() > 1)
            warnings.push_back(side.label + " pools runs of different kernels (build id, image or "
                                            "kernel parameters differ)");
    }
    const RunFile& base = sides[0].runs[0];
    for (size_t i = 1; i < sides.size(); i++) {
        bool all_same = !base.build_id.empty();
        for (const auto* side : {&sides[0], &sides[i]})
            for (const auto& run : side->runs)
                all_same = all_same && kernel_of(run) == kernel_of(base);
        if (all_same)
            warnings.push_back(sides[0].label + " and " + sides[i].label +
                               " ran the same kernel build (build id " + base.build_id +
                               "), the same image and the same kernel parameters besides initbench.*: are these "
                               "really different kernels?");
    }
}

// "0.1.0 (bcdac30)": the image's build as its header says it; "" when it does not.
std::string image_build(const RunFile& r) {
    if (r.image_version.empty())
        return "";
    return r.image_version + (r.image_commit.empty() ? "" : " (" + r.image_commit + ")");
}

// The image's build and its file's hash ("0.1.0 (bcdac30), sha256 1a2b3c4d5e6f"); "" when
// the run does not record both.
std::string image_file(const RunFile& r) {
    const std::string build = image_build(r);
    if (build.empty() || r.image_sha256.empty())
        return "";
    return build + ", sha256 " + r.image_sha256.substr(0, 12);
}

// Sides that ran under different QEMU or image builds: a change may be theirs, not the
// kernel's. Runs that do not record the fact are left out.
void environment_warnings(const std::vector<Side>& sides, std::vector<std::string>& warnings) {
    // Adds a warning for each side whose runs differ in `what`; says whether it added one.
    auto check = [&](const std::string& what, std::string (*value_of)(const RunFile&)) {
        const size_t before = warnings.size();
        std::vector<std::set<std::string>> seen(sides.size());
        for (size_t i = 0; i < sides.size(); i++)
            for (const auto& run : sides[i].runs)
                if (auto v = value_of(run); !v.empty())
                    seen[i].insert(v);
        auto list = [](const std::set<std::string>& values) {
            std::string out;
            for (const auto& v : values)
                out += (out.empty() ? "" : " and ") + v;
            return out;
        };
        for (size_t i = 0; i < sides.size(); i++)
            if (seen[i].size() > 1)
                warnings.push_back(sides[i].label + " pools runs of different " + what + ": " +
                                   list(seen[i]));
        for (size_t i = 1; i < sides.size(); i++)
            if (!seen[0].empty() && !seen[i].empty() && seen[i] != seen[0])
                warnings.push_back(what + " differs: " + sides[0].label + " ran " + list(seen[0]) +
                                   ", " + sides[i].label + " " + list(seen[i]) +
                                   "; a change may come from it, not from the kernel");
        return warnings.size() > before;
    };
    check("QEMU", [](const RunFile& r) { return r.qemu; });
    // Two images of one build (a tree rebuilt with changes not yet committed) differ too:
    // under icount, a change to the loads' declarations alone moved the fork rate by 3 %.
    if (!check("initbench image", image_build))
        check("initbench image file", image_file);
}

} // namespace

Status check_sides(const std::vector<Side>& sides, const CompareOptions& options, Report& report) {
    IB_TRY(check_clocks(sides, options, report.warnings));
    IB_TRY(check_experiments(sides, options, report.warnings));
    identity_warnings(sides, report.warnings);
    environment_warnings(sides, report.environment_warnings);
    if (auto busy = busy_host_warning(sides); !busy.empty())
        report.environment_warnings.push_back(std::move(busy));
    report.warnings.insert(report.warnings.end(), report.environment_warnings.begin(),
                           report.environment_warnings.end());
    return ok();
}

std::string busy_host_warning(const std::vector<Side>& sides) {
    constexpr double kBusy = 0.5; // CPUs' worth: more than the odd daemon
    std::string busy;
    for (const auto& side : sides) {
        size_t n = 0, known = 0;
        double most = 0;
        for (const auto& run : side.runs) {
            if (run.clock != "wall" || !run.others_busy_cpus)
                continue;
            known++;
            if (*run.others_busy_cpus >= kBusy) {
                n++;
                most = std::max(most, *run.others_busy_cpus);
            }
        }
        if (n)
            busy += (busy.empty() ? "" : ", ") + side.label + " " + std::to_string(n) + " of " +
                    std::to_string(known) + " (up to " + format_number(most, "%.2f") + " CPUs)";
    }
    if (busy.empty())
        return "";
    return "runs shared the host with other work, " + format_number(kBusy, "%g") +
           " CPUs' worth or more (host.others_busy_cpus): " + busy +
           "; on the wall clock other work can slow a boot even from other CPUs (caches, memory, I/O, "
           "kernel threads), so part of a change or of its spread may be the host's";
}

SideInfo side_info(const Side& side) {
    SideInfo info{side.label, {}, {}, "", "", "", "", {}};
    for (const auto& run : side.runs) {
        info.files.push_back(run.path);
        info.run_ids.push_back(run.run_id);
        info.host_cpus.push_back(run.host_cpus);
    }
    info.kernel_release = side.runs[0].kernel_release;
    info.build_id = side.runs[0].build_id;
    info.qemu = side.runs[0].qemu;
    info.image = image_build(side.runs[0]);
    return info;
}

} // namespace initbench
