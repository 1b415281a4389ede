#include "sys/procfs.h"

#include "common/text.h"
#include "sys/sys.h"

#include <algorithm>
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

std::optional<uint64_t> read_uint(const std::string& path) {
    auto text = read_file(path, 64);
    if (!text)
        return std::nullopt;
    return parse_integer<uint64_t>(trim(text.value()));
}

std::optional<uint64_t> keyed_value(std::string_view text, std::string_view key) {
    for (std::string_view line : split_lines(text)) {
        auto words = split_words(line);
        if (words.size() >= 2 && words[0] == key)
            return parse_integer<uint64_t>(words[1]);
    }
    return std::nullopt;
}

nlohmann::json make_room_for_tasks(uint64_t tasks) {
    nlohmann::json changed = nlohmann::json::object();
    // The fourth field of /proc/loadavg is running/total: the threads there are now.
    uint64_t now = 0;
    if (auto loadavg = read_file("/proc/loadavg", 256)) {
        auto words = split_words(loadavg.value());
        if (words.size() >= 4)
            if (size_t slash = words[3].find('/'); slash != std::string_view::npos)
                now = parse_integer<uint64_t>(words[3].substr(slash + 1)).value_or(0);
    }
    const uint64_t needed = now + tasks + 256; // headroom for the kernel's own threads
    struct Knob {
        const char* path;
        const char* name;
        uint64_t cap; // the kernel's own maximum
    };
    for (const Knob& k : {Knob{"/proc/sys/kernel/threads-max", "threads_max", 0x3fffffff},
                          Knob{"/proc/sys/kernel/pid_max", "pid_max", 4194304}}) {
        auto was = read_uint(k.path);
        if (!was || *was >= needed)
            continue;
        const uint64_t to = std::min(needed, k.cap);
        if (Status s = write_file(k.path, std::to_string(to)); s)
            changed[k.name] = {{"was", *was}, {"now", to}};
        else
            changed[k.name] = {{"was", *was}, {"error", s.error().message()}};
    }
    return changed;
}

} // namespace initbench
