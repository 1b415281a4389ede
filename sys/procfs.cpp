#include "sys/procfs.h"

#include "common/text.h"
#include "sys/sys.h"

#include <charconv>
#include <dirent.h>

namespace initbench {

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
    auto open = text.find('(');
    auto close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return std::nullopt;
    ProcStat st;
    auto pid_text = trim(text.substr(0, open));
    if (std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), st.pid).ec != std::errc{})
        return std::nullopt;
    st.comm = std::string(text.substr(open + 1, close - open - 1));
    // After the comm: state(3) ppid(4) pgrp(5) ... flags(9) ... utime(14) stime(15) cutime(16)
    // cstime(17), 1-based as in proc(5).
    auto rest = split_words(text.substr(close + 1));
    if (rest.size() < 15)
        return std::nullopt;
    auto num = [](std::string_view s, auto& out) {
        return std::from_chars(s.data(), s.data() + s.size(), out).ec == std::errc{};
    };
    st.state = rest[0].empty() ? 0 : rest[0][0];
    if (!num(rest[1], st.ppid) || !num(rest[2], st.pgrp) || !num(rest[6], st.flags) || !num(rest[11], st.utime) ||
        !num(rest[12], st.stime) || !num(rest[13], st.cutime) || !num(rest[14], st.cstime))
        return std::nullopt;
    return st;
}

std::optional<ProcStat> read_proc_stat(int pid) {
    auto text = read_file("/proc/" + std::to_string(pid) + "/stat", 4096);
    if (!text)
        return std::nullopt;
    return parse_proc_stat(text.value());
}

void for_each_process(const std::function<void(const ProcStat&)>& each) {
    DIR* d = ::opendir("/proc");
    if (!d)
        return;
    while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        auto text = read_file(std::string("/proc/") + e->d_name + "/stat", 4096);
        if (!text)
            continue; // gone meanwhile
        if (auto st = parse_proc_stat(text.value()))
            each(*st);
    }
    ::closedir(d);
}

} // namespace initbench
