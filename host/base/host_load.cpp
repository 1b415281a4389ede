#include "host/base/host_load.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

namespace initbench {
namespace {

double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

double monotonic_s() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

double self_cpu_s() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return seconds(u.ru_utime) + seconds(u.ru_stime);
}

} // namespace

Result<HostCpuTime> parse_host_cpu_time(std::string_view proc_stat, double ticks_per_s) {
    std::istringstream in{std::string(proc_stat.substr(0, proc_stat.find('\n')))};
    std::string name;
    in >> name;
    if (name != "cpu")
        return Error{"/proc/stat does not begin with the line \"cpu ...\""};
    // user nice system idle iowait irq softirq steal; older kernels stop after iowait or irq.
    double field[8] = {};
    size_t n = 0;
    while (n < 8 && in >> field[n])
        n++;
    if (n < 4 || ticks_per_s <= 0)
        return Error{"/proc/stat's cpu line has " + std::to_string(n) + " figures, not the 4 or more it should"};
    const double idle = field[3] + field[4];
    const double busy = field[0] + field[1] + field[2] + field[5] + field[6] + field[7];
    return HostCpuTime{busy / ticks_per_s, (busy + idle) / ticks_per_s};
}

Result<HostLoadMark> mark_host_load() {
    std::ifstream in("/proc/stat");
    std::string line;
    if (!std::getline(in, line))
        return Error{"/proc/stat cannot be read"};
    auto host = parse_host_cpu_time(line, double(::sysconf(_SC_CLK_TCK)));
    if (!host)
        return host.error();
    return HostLoadMark{host.value(), self_cpu_s(), monotonic_s()};
}

Result<double> others_busy_cpus(const HostLoadMark& before, const HostLoadMark& after, double child_cpu_s) {
    const double wall = after.at_s - before.at_s;
    if (wall <= 0)
        return Error{"no time passed between the two readings of the host's load"};
    const double own = child_cpu_s + (after.self_cpu_s - before.self_cpu_s);
    return std::max(0.0, (after.host.busy_s - before.host.busy_s - own) / wall);
}

} // namespace initbench
