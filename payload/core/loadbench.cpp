// initbench-loadbench: runs one of initbench's loads as an ordinary program on a live
// system, with the keys the guest takes (without the "initbench." prefix), and prints one
// JSON line per phase. No cgroup and no limits: it is for measuring the loads themselves,
// e.g. against stress-ng (scripts/bench-loads.sh).
#include "common/config.h"
#include "payload/core/load_group.h"
#include "payload/core/load.h"
#include "sys/procfs.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace initbench;

namespace {

int usage() {
    std::fprintf(stderr, "usage: initbench-loadbench LOAD SECONDS [KEY=VALUE ...]\n"
                         "       initbench-loadbench --list   (the load names, one a line, each with its\n"
                         "                                     sweep key when it has one)\n"
                         "  KEY=VALUE as initbench.KEY=VALUE in the guest, e.g. workers=2\n"
                         "loads:\n");
    for (const auto* l : load_registry())
        std::fprintf(stderr, "  %-7s %s\n", std::string(l->name()).c_str(),
                     std::string(l->decl.help).c_str());
    return 2;
}

// CPU time of the workers and of the children they reaped, from /proc (clock ticks): unlike
// getrusage, it can be read while they run, so it covers just the measured window.
double workers_cpu_s(const LoadGroup& group) {
    double ticks = 0;
    for (pid_t pid : group.worker_pids()) {
        if (auto st = read_proc_stat(pid))
            ticks += double(st->utime + st->stime + st->cutime + st->cstime);
    }
    return ticks / double(::sysconf(_SC_CLK_TCK));
}

void sleep_until(double t) {
    for (double now = monotonic_seconds(); now < t; now = monotonic_seconds())
        ::usleep(static_cast<useconds_t>(std::min(t - now, 0.1) * 1e6));
}

// One phase: start, wait until set up, half a second of warm-up, the measured window, stop.
nlohmann::json run_once(const LoadSpec& spec, const LoadParams& params, double seconds) {
    const double t_start = monotonic_seconds();
    auto started = LoadGroup::start(spec, params, LoadOptions{});
    if (!started)
        return {{"load", spec.name()}, {"error", started.error().message()}};
    auto& group = *started.value();
    std::vector<WorkerExit> exits;
    const bool ready = group.wait_ready(t_start + 120, exits);
    sleep_until(monotonic_seconds() + 0.5);
    const double t0 = monotonic_seconds();
    const std::vector<WorkerMark> open = group.marks();
    const double cpu0 = workers_cpu_s(group);
    sleep_until(t0 + seconds);
    const std::vector<WorkerMark> close = group.marks();
    const double elapsed = monotonic_seconds() - t0;
    uint64_t ops = 0;
    for (size_t i = 0; i < close.size(); i++)
        ops += close[i].ops - open[i].ops;
    const double rate = ops_per_second(open, close, elapsed);
    const double cpu = workers_cpu_s(group) - cpu0;
    const StopReport stopped = group.stop();
    const double wall = monotonic_seconds() - t_start;
    nlohmann::json out{{"load", spec.name()},
                       {"params", params_json(params)},
                       {"op_unit", spec.op_unit()},
                       {"seconds", elapsed},
                       {"ops", ops},
                       {"ops_per_s", rate},
                       {"failures", group.failures()},
                       {"ready", ready},
                       {"cpu_s", cpu},
                       // getrusage covers start to stop, so it is set against that wall time
                       {"wall_s", wall},
                       {"user_s", stopped.cpu.user_s},
                       {"sys_s", stopped.cpu.sys_s}};
    if (spec.bytes_per_op)
        out["mb_per_s"] = rate * double(spec.bytes_per_op(params)) / 1e6;
    if (!exits.empty())
        out["early_exits"] = exits.size();
    return out;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string_view(argv[1]) == "--list") {
        for (const auto* l : load_registry())
            std::printf("%s%s%s\n", std::string(l->name()).c_str(), l->sweep().empty() ? "" : " ",
                        std::string(l->sweep()).c_str());
        return 0;
    }
    if (argc < 3)
        return usage();
    const LoadSpec* spec = find_load(argv[1]);
    char* end = nullptr;
    const double seconds = std::strtod(argv[2], &end);
    if (!spec || *end || !(seconds > 0))
        return usage();
    if (auto why = spec->unsupported(); !why.empty()) {
        std::fprintf(stderr, "initbench-loadbench: %s is not supported here: %s\n", argv[1],
                     why.c_str());
        return 1;
    }
    std::string cmdline;
    for (int i = 3; i < argc; i++)
        cmdline += std::string(kCmdlinePrefix) + argv[i] + " ";
    ConfigResult cfg = parse_config(cmdline, nullptr);
    for (const auto& e : cfg.errors)
        std::fprintf(stderr, "initbench-loadbench: %s\n", e.describe().c_str());
    if (!cfg.ok())
        return 2;
    for (unsigned v : sweep_values(*spec, cfg.config))
        std::printf("%s\n",
                    run_once(*spec, resolve_params(*spec, cfg.config, v), seconds).dump().c_str());
    return 0;
}
