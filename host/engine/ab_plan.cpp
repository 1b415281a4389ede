#include "host/engine/ab_plan.h"

#include "host/base/output_file.h"

#include "host/boot/boot_files.h"
#include "host/base/hash.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <sstream>

namespace initbench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

} // namespace

Result<std::vector<SidePlan>> plan_sides(const AbCli& cli) {
    const size_t n = std::max({cli.kernels.size(), cli.side_params.size(), cli.labels.size()});
    auto fits = [n](const std::vector<std::string>& v) { return v.size() <= 1 || v.size() == n; };
    if (!fits(cli.kernels) || !fits(cli.side_params) || !fits(cli.labels))
        return Error{"--kernel, --params and --label are each given once or once per side (" +
                     std::to_string(n) + " sides)"};
    if (cli.kernels.empty())
        return Error{"give --kernel"};
    if (n < 2)
        return Error{"ab needs two sides or more: --kernel twice, or --params twice ('' for none)"};
    std::vector<SidePlan> sides;
    for (size_t i = 0; i < n; i++) {
        auto pick = [i](const std::vector<std::string>& v) { return v.size() == 1 ? v[0] : v[i]; };
        SidePlan s;
        s.label = cli.labels.size() ? pick(cli.labels) : std::string(1, char('A' + i % 26));
        if (s.label.empty() || s.label.find_first_of("/ \t") != std::string::npos)
            return Error{"--label '" + s.label + "': a name without spaces or '/'"};
        for (const auto& other : sides)
            if (other.label == s.label)
                return Error{"two sides are labelled " + s.label};
        s.kernel = pick(cli.kernels);
        if (auto ok = check_kernel_file(s.kernel, cli.boot.arch); !ok)
            return Error{"--kernel " + ok.error().message()};
        s.params = cli.params;
        if (!cli.side_params.empty())
            for (auto& w : words(pick(cli.side_params)))
                s.params.push_back(w);
        sides.push_back(std::move(s));
    }
    return sides;
}

std::string experiment_difference(const std::vector<SidePlan>& sides) {
    // A side's initbench.* words as key -> value ("" for a bare key); the last one given wins,
    // as in the kernel's own parsing.
    auto settings = [](const SidePlan& side) {
        std::map<std::string, std::string> out;
        for (const auto& w : side.params)
            if (w.rfind("initbench.", 0) == 0) {
                const auto eq = w.find('=');
                out[w.substr(0, eq)] = eq == std::string::npos ? "" : w.substr(eq + 1);
            }
        return out;
    };
    const auto first = settings(sides[0]);
    for (size_t i = 1; i < sides.size(); i++) {
        const auto other = settings(sides[i]);
        for (const auto& [a, b, named_a, named_b] :
             {std::tuple{&first, &other, sides[0].label, sides[i].label},
              std::tuple{&other, &first, sides[i].label, sides[0].label}})
            for (const auto& [key, value] : *a) {
                const auto it = b->find(key);
                if (it == b->end())
                    return named_a + " sets " + key + "=" + value + ", " + named_b + " does not";
                if (it->second != value)
                    return named_a + " sets " + key + "=" + value + ", " + named_b + " " + key + "=" + it->second;
            }
    }
    return "";
}

json plan_document(const AbCli& cli, const std::vector<SidePlan>& sides) {
    json js = json::array();
    for (const auto& s : sides)
        js.push_back({{"label", s.label},
                      {"kernel", s.kernel},
                      {"kernel_sha256", sha256_file(s.kernel)},
                      {"params", s.params}});
    return {{"initbench_ab", 1},
            {"sides", js},
            {"image_sha256", sha256_file(cli.boot.image)},
            {"arch", cli.boot.arch},
            {"clock", cli.boot.clock},
            {"accel", cli.boot.accel},
            {"boot", cli.boot.boot},
            {"cpus", cli.boot.cpus},
            {"memory_mb", cli.boot.memory_mb},
            {"metrics", cli.metrics},
            {"method", cli.method},
            {"confidence", cli.confidence},
            {"min_effect_pct", cli.min_effect_pct},
            {"min_boots", cli.min_boots}};
}

namespace {

// The leaves in which two plans differ, by their path ("sides[1].params"), the first `most`.
void differences(const json& was, const json& now, const std::string& path, std::vector<std::string>& out,
                 size_t most) {
    if (out.size() >= most || was == now)
        return;
    if (was.is_object() && now.is_object()) {
        for (const auto& [key, value] : now.items())
            differences(was.value(key, json()), value, path + (path.empty() ? "" : ".") + key, out, most);
        for (const auto& [key, value] : was.items())
            if (!now.contains(key))
                differences(value, json(), path + "." + key, out, most);
    } else if (was.is_array() && now.is_array() && was.size() == now.size()) {
        for (size_t i = 0; i < now.size(); i++)
            differences(was[i], now[i], path + "[" + std::to_string(i) + "]", out, most);
    } else {
        out.push_back(path + ": " + was.dump() + " there, " + now.dump() + " now");
    }
}

} // namespace

Status claim_directory(const fs::path& dir, const json& plan) {
    fs::create_directories(dir / "runs");
    const fs::path file = dir / "ab.json";
    if (!fs::exists(file))
        return write_output_file(file, plan.dump(1) + "\n");
    std::ifstream in(file);
    json old = json::parse(in, nullptr, false);
    if (old.is_discarded())
        return Error{file.string() + " is not an ab plan"};
    std::vector<std::string> diff;
    for (const auto& [key, value] : plan.items())
        differences(old.value(key, json()), value, key, diff, 3);
    if (diff.empty())
        return ok();
    std::string text;
    for (const auto& d : diff)
        text += (text.empty() ? "" : "; ") + d;
    return Error{dir.string() + " holds another experiment (" + text + "); use another --out"};
}

BootsAtOnce boots_at_once(unsigned asked, const std::string& clock, size_t host_cpus, unsigned guest_cpus) {
    const bool icount = clock == "icount";
    if (asked == 0)
        return {icount ? std::max<unsigned>(1, unsigned(host_cpus / std::max(1u, guest_cpus))) : 1, ""};
    if (asked > 1 && !icount)
        return {asked, "-j " + std::to_string(asked) +
                           " on the wall clock: host CPUs can differ in speed, so each side's boots are spread "
                           "over the boots at once alike, the test permutes within each one's CPUs and looks wait "
                           "for whole rounds; boots at once also slow "
                           "each other (memory, caches): -j 1 runs every boot alone on the same CPUs"};
    return {asked, ""};
}

size_t host_cpu_strata(const std::vector<std::vector<unsigned>>& slots, bool fixed_slots) {
    return fixed_slots ? std::max<size_t>(1, std::set<std::vector<unsigned>>(slots.begin(), slots.end()).size()) : 1;
}

std::vector<std::vector<unsigned>> host_cpu_slots(unsigned jobs, unsigned guest_cpus,
                                                  const std::vector<unsigned>& allowed) {
    std::vector<std::vector<unsigned>> slots(jobs);
    if (size_t(jobs) * guest_cpus > allowed.size())
        return slots;
    for (unsigned k = 0; k < jobs; k++) {
        const size_t end = allowed.size() - size_t(k) * guest_cpus;
        slots[k].assign(allowed.begin() + long(end - guest_cpus), allowed.begin() + long(end));
    }
    return slots;
}

} // namespace initbench
