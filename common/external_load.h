// External loads: a program the experiment runs as a load (initbench.load.NAME="PROGRAM
// ARGS"). The text side, shared by the host (pack checks the keys) and the guest: the load's
// name, the substitutions in its command, its clients list and the metric in its output.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

namespace initbench {

class Config;

// The built-in loads' names, each payload/X/X_load.h's (the generated load catalog): an
// external load may not take one.
const std::vector<std::string_view>& builtin_load_names();
// Why NAME cannot name an external load: [a-z][a-z0-9_]{0,31}, not "none", not a built-in
// load, not a key of its own (load.cpus, load.nice). Empty when it can.
std::string check_external_load_name(std::string_view name);

// What the placeholders of a command stand for in one phase.
struct ExternalValues {
    std::string duration; // the phase's warm-up and measured seconds, as text
    unsigned workers = 0; // initbench.workers, or the online CPUs when 0
    unsigned clients = 0; // this phase's value of load.NAME.clients
    unsigned cpus = 0;    // online CPUs
};
// {duration}, {workers}, {clients} and {cpus} replaced by their values.
std::string substitute(std::string_view command, const ExternalValues& values);
// Why a command's placeholders are wrong (an unknown or unclosed one), or empty.
std::string check_placeholders(std::string_view command);
bool uses_placeholder(std::string_view command, std::string_view name);

// A clients list: counts (4), the CPUs (cpus), multiples and fractions of them (2*cpus,
// cpus/2, at least 1), and `...` between two items, which doubles the item before it until
// the one after it (1,2,...,2*cpus). Repeats are dropped; the order is kept. Nothing, and
// `why` set, when an item is none of these or a count is outside 1..1024.
std::optional<std::vector<unsigned>> expand_counts(const std::vector<std::string>& items, unsigned cpus,
                                                   std::string& why);
// The key check of one item (any number of CPUs must give a count).
std::string check_count_item(std::string_view item);

// A metric's regular expression: POSIX extended, with exactly one capture group.
std::string check_metric_regex(std::string_view regex);
// The capture of the regex's last match in `output`, as a non-negative number; nothing, and
// `why` set, when there is no match or the capture is not such a number.
std::optional<double> find_metric(std::string_view output, const std::string& regex, std::string& why);

// The external loads' keys that do not fit together, each as (key, why): a field without
// load.NAME, ready without setup, unit/better/agg without metric, a metric without a unit,
// {clients} without load.NAME.clients or the other way round, `...` out of place.
std::vector<std::pair<std::string, std::string>> external_load_conflicts(const Config& config);

// The PATH the init gives every program it runs (commands, loads, the background command):
// where a bare program name is found, in the guest and by pack's check on the host.
#define INITBENCH_GUEST_PATH "/payload/bin:/payload:/bin:/sbin:/usr/bin:/usr/sbin"
inline constexpr const char* kGuestPath = INITBENCH_GUEST_PATH;

// Whether /proc/net/tcp or tcp6 text has a socket listening on `port`.
bool tcp_listening(std::string_view proc_net_tcp, unsigned port);

// At most the last `bytes` of `text`, starting at a line when a line starts in them.
std::string output_tail(std::string_view text, size_t bytes);

} // namespace initbench
