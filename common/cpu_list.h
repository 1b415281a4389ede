// CPU lists as the kernel writes them (/sys/devices/system/cpu/online, cpuset.cpus):
// "0-3,8,10-11", plus "all". Header-only so that the key table (common/) and the loads
// (payload/) share one parser without another library.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

// CPU_SETSIZE of both glibc and musl: sched_setaffinity() with a cpu_set_t goes no higher.
inline constexpr unsigned kMaxCpus = 1024;

namespace detail {
inline bool parse_cpu_number(std::string_view s, unsigned& out) {
    if (s.empty() || s.size() > 4 || s.find_first_not_of("0123456789") != std::string_view::npos)
        return false;
    out = 0;
    for (char c : s)
        out = out * 10 + unsigned(c - '0');
    return out < kMaxCpus;
}
} // namespace detail

// Sorted, without duplicates, in `cpus`; "all" and "" give an empty list (no pinning).
// Returns why the text is refused, or "".
inline std::string parse_cpu_list(std::string_view text, std::vector<unsigned>& cpus) {
    cpus.clear();
    if (text.empty() || text == "all")
        return "";
    std::vector<bool> seen(kMaxCpus);
    for (size_t start = 0; start <= text.size();) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view item = text.substr(start, comma - start);
        const size_t dash = item.find('-');
        unsigned lo = 0, hi = 0;
        bool ok = false;
        if (dash == std::string_view::npos) {
            ok = detail::parse_cpu_number(item, lo);
            hi = lo;
        } else {
            ok = detail::parse_cpu_number(item.substr(0, dash), lo) &&
                 detail::parse_cpu_number(item.substr(dash + 1), hi);
        }
        if (!ok)
            return "'" + std::string(item) + "' is not a CPU or a range N-M of CPUs 0 to " +
                   std::to_string(kMaxCpus - 1);
        if (hi < lo)
            return "'" + std::string(item) + "': the range goes downwards";
        for (unsigned c = lo; c <= hi; c++)
            seen[c] = true;
        start = comma + 1;
    }
    for (unsigned c = 0; c < kMaxCpus; c++)
        if (seen[c])
            cpus.push_back(c);
    return "";
}

} // namespace initbench
