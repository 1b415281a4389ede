#include "host/results/environment.h"

#include "host/base/hash.h"
#include "host/base/process.h"
#include "initbench_build.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sys/utsname.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// "key\t: value" lines of /proc/cpuinfo; the first processor's value of key.
std::string cpuinfo_value(std::string_view cpuinfo, std::string_view key) {
    size_t pos = 0;
    while (pos < cpuinfo.size()) {
        size_t end = cpuinfo.find('\n', pos);
        std::string_view line = cpuinfo.substr(pos, end == std::string_view::npos ? end : end - pos);
        pos = end == std::string_view::npos ? cpuinfo.size() : end + 1;
        size_t colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        std::string_view name = line.substr(0, colon);
        while (!name.empty() && (name.back() == ' ' || name.back() == '\t'))
            name.remove_suffix(1);
        if (name != key)
            continue;
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
            value.remove_prefix(1);
        return std::string(value);
    }
    return "";
}

std::string read_text(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

json qemu_facts(const std::string& binary) {
    // One look a process: bisect-step boots many times with the same QEMU.
    static std::map<std::string, json> seen;
    if (auto it = seen.find(binary); it != seen.end())
        return it->second;
    std::string out;
    ChildRun run;
    run.argv = {binary, "--version"};
    run.timeout_s = 30;
    run.exit_grace_s = 5;
    run.on_output = [&](std::string_view bytes) {
        out.append(bytes.substr(0, 4096 - std::min<size_t>(out.size(), 4096)));
        return false;
    };
    ChildOutcome c = run_child(run);
    json facts = qemu_version_facts(out);
    facts["binary"] = binary;
    if (c.end != ChildOutcome::End::exited || c.exit_code != 0 || !facts.contains("version")) {
        std::string why = c.error.empty() ? c.stderr_text.substr(0, c.stderr_text.find('\n')) : c.error;
        facts = {{"binary", binary},
                 {"error", "`" + binary + " --version` gave no version (exit " + std::to_string(c.exit_code) +
                               (why.empty() ? "" : ": " + why) + ")"}};
    }
    return seen[binary] = facts;
}

} // namespace

json file_facts(const std::string& path) {
    json j{{"path", path}};
    try {
        j["sha256"] = sha256_file(path);
        j["bytes"] = fs::file_size(path);
    } catch (const std::exception& e) {
        j = {{"path", path}, {"error", e.what()}};
    }
    return j;
}

json qemu_version_facts(std::string_view output) {
    std::string_view banner = output.substr(0, output.find('\n'));
    while (!banner.empty() && (banner.back() == '\r' || banner.back() == ' '))
        banner.remove_suffix(1);
    json facts = json::object();
    constexpr std::string_view kMark = "version ";
    size_t at = banner.find(kMark);
    if (at == std::string_view::npos)
        return facts;
    std::string_view version = banner.substr(at + kMark.size());
    version = version.substr(0, version.find(' '));
    if (version.empty())
        return facts;
    facts["version"] = std::string(version);
    facts["banner"] = std::string(banner);
    return facts;
}

std::string cpu_model(std::string_view cpuinfo) {
    if (auto name = cpuinfo_value(cpuinfo, "model name"); !name.empty())
        return name;
    auto implementer = cpuinfo_value(cpuinfo, "CPU implementer");
    auto part = cpuinfo_value(cpuinfo, "CPU part");
    if (!implementer.empty() && !part.empty())
        return "implementer " + implementer + " part " + part;
    return "";
}

json cli_build_facts() {
    return {{"version", INITBENCH_BUILD_VERSION}, {"commit", INITBENCH_BUILD_COMMIT}};
}

json image_build_facts(const ParsedLog& log) {
    for (const auto& r : log.records) {
        const json& h = r.json;
        if (!h.is_object() || h.value("type", json()) != "header")
            continue;
        json facts = json::object();
        for (const auto& [from, to] : {std::pair{"initbench", "version"}, std::pair{"initbench_commit", "commit"}})
            if (auto it = h.find(from); it != h.end() && it->is_string() && !it->get<std::string>().empty())
                facts[to] = *it;
        return facts.contains("version") ? facts : json();
    }
    return json();
}

json run_environment(const std::string& qemu_binary, const std::string& kernel_config) {
    utsname u{};
    ::uname(&u);
    json env = {{"initbench", cli_build_facts()},
                {"qemu", qemu_facts(qemu_binary)},
                {"host",
                 {{"cpu_model", cpu_model(read_text("/proc/cpuinfo"))},
                  {"kernel_release", u.release},
                  {"kernel_version", u.version},
                  {"machine", u.machine}}}};
    if (!kernel_config.empty())
        env["kernel_config"] = file_facts(kernel_config);
    return env;
}

json parse_environment() {
    return {{"initbench", cli_build_facts()}};
}

} // namespace initbench
