#include "host/image/settings_check.h"

#include "common/external_load.h"
#include "common/perf_events.h"
#include "common/text.h"
#include "host/image/image_settings.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace initbench {

std::vector<std::string> missing_programs(const Config& config, const std::string& image,
                                          const std::vector<CpioEntry>& added) {
    auto listed = read_cpio_files(image, [](const std::string&) { return true; }, 0);
    if (!listed)
        return {};
    std::set<std::string> paths;
    for (const auto& [path, contents] : listed.value())
        paths.insert("/" + path);
    for (const auto& e : added)
        paths.insert("/" + e.path);
    std::vector<std::string> dirs;
    for (std::string_view rest = kGuestPath; !rest.empty();) {
        const size_t colon = std::min(rest.find(':'), rest.size());
        dirs.emplace_back(rest.substr(0, colon));
        rest.remove_prefix(std::min(colon + 1, rest.size()));
    }
    std::vector<std::pair<std::string, std::string>> commands; // key, command
    for (const auto& name : config.family_names("load"))
        for (const std::string& key : {"load." + name, "load." + name + ".setup"})
            commands.push_back({key, config.str(key)});
    for (const char* key : {"cmd", "background"})
        commands.push_back({key, config.str(key)});
    std::vector<std::string> out;
    for (const auto& [key, command] : commands) {
        std::vector<std::string> argv;
        if (command.empty() || !split_command(command, argv).empty() || argv.empty())
            continue; // nothing to run, or the key's own check refused it
        const std::string& program = argv[0];
        bool found = false;
        if (program.find('/') != std::string::npos)
            found = paths.count(program.front() == '/' ? program : "/" + program) > 0;
        else
            found = std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) { return paths.count(d + "/" + program); });
        if (found)
            continue;
        std::string line = key + "=" + command + ": " + program + " is not in the image";
        if (program.find('/') == std::string::npos) {
            std::vector<std::string> names; // what the PATH holds, for a did-you-mean
            for (const auto& p : paths)
                for (const auto& d : dirs)
                    if (p.starts_with(d + "/") && p.find('/', d.size() + 1) == std::string::npos)
                        names.push_back(p.substr(d.size() + 1));
            line += " (nor along PATH " + std::string(kGuestPath) + ")";
            if (auto near = closest_name(program, names))
                line += "; did you mean '" + *near + "'?";
        }
        out.push_back(line + "; initbench pack --program or --add puts it there");
    }
    return out;
}


std::vector<std::string> absent_cpus(const Config& config, unsigned cpus) {
    std::vector<std::string> out;
    const std::string guest = cpus == 1 ? "a guest of 1 CPU has CPU 0 only"
                                        : "a guest of " + std::to_string(cpus) + " CPUs has CPUs 0-" + std::to_string(cpus - 1);
    // The init reads pin when it runs a command or a module, and load.cpus when it runs phases.
    const bool command = command_mode(config);
    for (const char* key : {"pin", "load.cpus"}) {
        if (command != (key == std::string_view("pin")))
            continue;
        const std::string value = config.str(key);
        auto listed = parse_cpu_list(value); // the key's own check refuses a bad list
        if (!listed || listed->empty())
            continue;
        std::string absent;
        size_t n = 0;
        for (unsigned c : *listed)
            if (c >= cpus)
                absent += (n++ ? "," : "") + std::to_string(c);
        const bool all_absent = n == listed->size();
        if (!n || (key != std::string_view("pin") && !all_absent))
            continue;
        const std::string what = n == 1 ? "CPU " + absent + " is not online"
                                 : all_absent ? "none of CPUs " + absent + " is online"
                                              : "CPUs " + absent + " are not online";
        out.push_back(std::string(key) + "=" + value + ": " + what + " (" + guest +
                      "; --cpus or machine.cpus sets how many)");
    }
    return out;
}

bool settings_accepted(std::string_view who, const std::string& image, const std::vector<std::string>& params,
                       std::string_view bypass, unsigned cpus) {
    std::vector<std::string> errors;
    for (const auto& e : check_settings(image, params))
        errors.push_back(e.describe());
    if (errors.empty()) { // a program or a CPU is looked for once the keys are good
        const Config config = image_settings(image, params).config;
        errors = missing_programs(config, image);
        if (cpus)
            for (auto& e : absent_cpus(config, cpus))
                errors.push_back(std::move(e));
    }
    for (const auto& e : errors)
        std::fprintf(stderr, "initbench %.*s: %s\n", int(who.size()), who.data(), e.c_str());
    if (errors.empty())
        return true;
    std::fprintf(stderr, "initbench %.*s: refused before the boot: the init would report %s as an error record%s%.*s\n",
                 int(who.size()), who.data(), errors.size() == 1 ? "it" : "them",
                 bypass.empty() ? "" : "; ", int(bypass.size()), bypass.data());
    return false;
}

} // namespace initbench
