// The one table of configuration keys: the rows here, and each load's and each probe's own
// (its payload/X/load.json or bpf/X/X_probe.h, gathered by the generated load_catalog.h and
// probe_catalog.h). Parsing, validation, profiles
// and the header record pick every row up from the table.

#include "common/config.h"
#include "common/external_load.h"
#include "common/key_rows.h"
#include "common/machine.h"
#include "common/perf_events.h"
#include "common/text.h"
#include "load_catalog.h"
#include "probe_catalog.h"

#include <algorithm>

namespace initbench {

std::string check_profile_name(std::string_view name) {
    const bool ok =
        !name.empty() && name.size() <= 32 &&
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") == std::string_view::npos;
    return ok ? "" : "must be 1 to 32 characters of a-z, 0-9, '_' and '-'";
}

namespace {

std::string check_module_path(std::string_view text) {
    return text.starts_with('/') ? "" : "must be an absolute path in the image, like /payload/x.ko";
}
// All of `text` is a whole number from lo to hi.
bool whole_number_in(std::string_view text, long lo, long hi) {
    const std::optional<long> v = parse_integer<long>(text);
    return v && *v >= lo && *v <= hi;
}
std::string check_nice(std::string_view text) {
    return whole_number_in(text, -20, 19) ? "" : "must be a nice level from -20 to 19";
}
// A command with placeholders: split as a payload command is, and only the known ones.
std::string check_external_command(std::string_view text) {
    if (std::string why = check_command(text); !why.empty())
        return why;
    return check_placeholders(text);
}
// A row of the load.NAME family (an external load).
constexpr KeySpec external_key(KeySpec k) {
    k.name_check = check_external_load_name;
    return k;
}

// The rows that are no load's or probe's own: the run, the loads' placement and limits, the
// machine, the commands, perf, external loads.
constexpr KeySpec kGeneralKeys[] = {
    checked_key(
        plain_key("profile", Kind::string, "default", "profile applied under the command line"),
        check_profile_name),
    seconds_key("duration", "5", 0.05, 86400, "measured time per phase"),
    seconds_key("warmup", "0", 0, 3600, "unmeasured time before each phase"),
    seconds_key("rest", "0", 0, 3600,
                "idle, unmeasured time before each phase and its warm-up: no load runs"),
    uint_key("rounds", "1", 1, 1000, "times every phase is repeated"),
    seconds_key("timeout", "600", 1, 604800, "limit for the whole run; the init ends after it"),
    enum_key("end", "poweroff", "poweroff|reboot|halt|shell", "what the init does when done"),
    enum_key("format", "json", "json|ktap|lava",
             "also print a KTAP or LAVA test-case summary after the end record"),
    uint_key("loglevel", "1", 0, 8, "console loglevel during the run"),
    plain_key("phases", Kind::list, "none", "phases to run, in order"),
    uint_key("workers", "0", 0, 100000,
             "worker processes of each load (pipe and tcp: one phase per pipe.groups or "
             "tcp.clients value "
             "instead; an external load is one program, told it as {workers}); 0: one per CPU"),
    uint_key("machine.cpus", "0", 0, 1024,
             "the CPUs of the machine the experiment is meant for: `initbench run` boots QEMU with "
             "them; the init warns when it finds other (0: not said)"),
    uint_key("machine.memory_mb", "0", 0, 1 << 20,
             "the memory of that machine in MiB: `initbench run` gives QEMU as much (0: not said)"),
    checked_text_key(
        "machine.topology", check_topology,
        "SOCKETS:CORES:THREADS of that machine, for QEMU's -smp (the scheduler's LLC and "
        "SMT domains); must multiply to machine.cpus"),
    checked_text_key("load.cpus", check_cpu_list, "CPUs the loads run on (0, 2-3); default all"),
    checked_key(
        plain_key("load.nice", Kind::string, "0", "nice level of the loads' tasks, -20 to 19"),
        check_nice),
    seconds_key("churn", "0", 0, 3600, "kill and respawn a load's tasks this often; 0: never"),
    uint_key("limit.tasks", "20000", 1, 4194304,
             "most tasks a load may have at once (pids cgroup)"),
    uint_key("limit.memory_mb", "0", 0, 1 << 24,
             "a load's memory limit in MiB (memory cgroup); 0: available less a reserve"),
    enum_key("attach", "auto", "auto|fentry|kprobe",
             "function probes: fentry/fexit where possible, else kprobes; or force one"),
    plain_key("probe_cost", Kind::flag, "1",
              "count each BPF probe's program runs and time (kernel BPF statistics): its cost"),
    checked_text_key("cmd", check_command, "command run under the counters (no phases run)"),
    checked_text_key(
        "module", check_module_path,
        "kernel module (.ko path in the image) loaded and unloaded under the counters"),
    plain_key("module.params", Kind::string, "", "the module's parameters, as insmod takes them"),
    checked_text_key("background", check_command,
                     "payload command run alongside the phases (or commands), killed after them"),
    plain_key("background.ready", Kind::string, "",
              "the phases wait until the background command's output holds this text"),
    seconds_key("background.ready_timeout", "600", 1, 86400,
                "the longest wait for background.ready; then an error and no phases"),
    enum_key("background.window_signal", "none", "none|USR1|USR2|HUP",
             "mark each phase's window open and close in the background output and send "
             "this signal (bpftrace prints its maps on USR1)"),
    plain_key("background.record", Kind::flag, "0",
              "a background record at the end: how the command ended, its output's last 64 KiB"),
    uint_key("repeat", "1", 1, 100000, "runs of the command or module, each counted on its own"),
    checked_text_key("pin", check_cpu_list, "CPUs the command or module load runs on (0, 2-3)"),
    // External loads: load.NAME="PROGRAM ARGS" makes NAME a load that phases can name.
    external_key(checked_text_key("load.*", check_external_command,
                                  "an external load NAME: the program and its arguments, with "
                                  "{duration}, {workers}, {clients} and {cpus} replaced")),
    external_key(checked_text_key("load.*.setup", check_external_command,
                                  "a program started before each of the load's phases (a server) "
                                  "and killed after it")),
    external_key(plain_key("load.*.ready", Kind::string, "",
                           "the phase waits until the setup's output holds this text")),
    external_key(uint_key("load.*.ready_port", "0", 0, 65535,
                          "the phase waits until a TCP socket listens on this port (for a setup "
                          "whose output is buffered); 0: no wait")),
    external_key(seconds_key("load.*.ready_timeout", "30", 0.1, 3600,
                             "the longest wait for load.NAME.ready or .ready_port; then an error "
                             "and the phase does not run")),
    external_key(checked_key(plain_key("load.*.clients", Kind::list, "",
                                       "values of {clients}, one phase each: counts, cpus, K*cpus, "
                                       "cpus/K, and ... to double up to the next"),
                             check_count_item)),
    external_key(
        checked_text_key("load.*.metric", check_metric_regex,
                         "the phase's metric: a POSIX extended regular expression with one "
                         "capture group, its last match in the program's output")),
    external_key(
        plain_key("load.*.unit", Kind::string, "", "the metric's unit (MB/s, bogo-ops/s)")),
    external_key(enum_key("load.*.better", "higher", "higher|lower",
                          "whether a higher or a lower metric is better")),
    external_key(enum_key("load.*.agg", "hmean", "hmean|amean",
                          "how the metric is averaged over rounds and runs: hmean for rates")),
    external_key(enum_key("load.*.window", "fixed", "fixed|program",
                          "fixed: the phase's window (warm-up, duration), with a warning when the "
                          "program ends 10 % of it before or after; program: the window is the "
                          "program's run, no warm-up, its length the metric run_s (a fixed-work "
                          "program: hackbench -l, stress-ng --fork-ops)")),
};

} // namespace

static_assert(std::all_of(std::begin(load_catalog::kDecls), std::end(load_catalog::kDecls),
                          [](const LoadDecl* d) { return shows_what_a_record_can(*d); }),
              "a load shows a key in its records that is not a count, seconds or choices");

const LoadDecl* find_load_decl(std::string_view name) {
    for (const LoadDecl* load : load_catalog::kDecls)
        if (load->name == name)
            return load;
    return nullptr;
}

// The built-in loads' names (the host, which checks that no external load takes one, builds
// no load): each payload/X/load.json's.
const std::vector<std::string_view>& builtin_load_names() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> out;
        for (const LoadDecl* load : load_catalog::kDecls)
            out.push_back(load->name);
        return out;
    }();
    return names;
}

std::vector<KeyOwner> key_owners() {
    std::vector<KeyOwner> owners{{"general", kGeneralKeys}};
    for (const LoadDecl* load : load_catalog::kDecls)
        owners.push_back(
            {"load " + std::string(load->name), load->keys,
             std::string(load->help) + "; an operation: " + std::string(load->op_unit)});
    for (const ProbeDecl* probe : probe_catalog::kDecls)
        owners.push_back({"probe " + std::string(probe->name()), probe->keys});
    return owners;
}

std::span<const KeySpec> config_keys() {
    // Function-local so that it is built on first use.
    static const std::vector<KeySpec> keys = [] {
        std::vector<KeySpec> rows;
        for (const KeyOwner& o : key_owners())
            rows.insert(rows.end(), o.keys.begin(), o.keys.end());
        return rows;
    }();
    return keys;
}

const KeySpec* find_key(std::string_view name) {
    for (const KeySpec& spec : config_keys())
        if (spec.name == name)
            return &spec;
    return nullptr;
}

std::string_view family_name(std::string_view key) {
    const size_t dot = key.find('.');
    if (dot == std::string_view::npos)
        return {};
    const std::string_view rest = key.substr(dot + 1);
    const std::string_view name = rest.substr(0, rest.find('.'));
    for (const KeySpec& spec : config_keys()) {
        const std::string_view row = spec.name;
        const size_t star = row.find('*');
        if (star == std::string_view::npos || row.substr(0, star) != key.substr(0, dot + 1))
            continue;
        if (row.substr(star + 1) == key.substr(dot + 1 + name.size()))
            return name;
    }
    return {};
}

const KeySpec* key_for(std::string_view name, std::string& why) {
    if (const KeySpec* spec = find_key(name))
        return spec;
    const std::string_view instance = family_name(name);
    if (instance.empty())
        return nullptr;
    const size_t dot = name.find('.');
    std::string row(name.substr(0, dot + 1));
    row += "*";
    row += name.substr(dot + 1 + instance.size());
    const KeySpec* spec = find_key(row);
    if (spec && spec->name_check)
        if (why = spec->name_check(instance); !why.empty())
            return nullptr;
    return spec;
}

} // namespace initbench
