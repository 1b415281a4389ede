#include "bpf/kthread_probe.h"
#include "bpf/setup_times.h"
#include "common/config.h"
#include "common/record_types.h"

#include <map>
#include <unistd.h>

namespace initbench {

namespace {

bool matches(const std::string& pattern, const std::string& comm) {
    if (!pattern.empty() && pattern.back() == '*')
        return comm.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
    return comm == pattern;
}

// Kernel threads are kthreadd (pid 2) and its children.
std::map<int, ProcStat> kernel_threads() {
    std::map<int, ProcStat> out;
    for_each_process([&](const ProcStat& st) {
        if (st.pid == 2 || st.ppid == 2)
            out[st.pid] = st;
    });
    return out;
}

class Kthread final : public Probe {
public:
    explicit Kthread(std::vector<std::string> names) : names_(std::move(names)) {}

    std::string name() const override { return "kthread"; }
    bool supported() const override { return true; }
    nlohmann::json describe() const override {
        return {{"probe", "kthread"}, {"names", names_}, {"supported", true}, {"mechanism", "/proc/PID/stat"}};
    }

    void phase_begin() override { begin_ = selected(); }

    void window_end() override {
        end_ = selected();
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        RecordBuilder metrics(declared_type("probe", "kthread"), r);
        const double hz = double(::sysconf(_SC_CLK_TCK));
        nlohmann::json threads = nlohmann::json::array();
        std::map<std::string, int> seen; // a name twice: "#2", as the host names it
        uint64_t total = 0;
        for (const auto& [pid, e] : end_) {
            auto b = begin_.find(pid);
            if (b == begin_.end())
                continue; // started during the phase: no baseline
            uint64_t ticks = (e.utime + e.stime) - (b->second.utime + b->second.stime);
            total += ticks;
            threads.push_back({{"pid", pid}, {"comm", e.comm}, {"utime", e.utime - b->second.utime},
                               {"stime", e.stime - b->second.stime}, {"ticks", ticks}});
            std::string label = entry_label(e.comm);
            if (int n = ++seen[label]; n > 1)
                label += "#" + std::to_string(n);
            metrics.metric("threads.*.utime", e.utime - b->second.utime, {label});
            metrics.metric("threads.*.stime", e.stime - b->second.stime, {label});
            metrics.metric("threads.*.ticks", ticks, {label});
        }
        r["clk_tck"] = hz;
        r["threads"] = threads;
        metrics.field("ticks", total);
        metrics.field("cpu_s", double(total) / hz);
        if (threads.empty())
            r["warning"] = "no kernel thread matched";
        return r;
    }

private:
    std::map<int, ProcStat> selected() const {
        std::map<int, ProcStat> out;
        for (auto& [pid, st] : kernel_threads())
            for (const auto& n : names_)
                if (matches(n, st.comm))
                    out[pid] = st;
        return out;
    }

    std::vector<std::string> names_;
    std::map<int, ProcStat> begin_, end_;
};

} // namespace

std::unique_ptr<Probe> make_kthread(const std::vector<std::string>& names) {
    return std::make_unique<Kthread>(names);
}

extern const ProbeSpec kthread_probe = {"kthread", [](const Config& config, std::vector<std::unique_ptr<Probe>>& out) {
    if (auto names = config.list("kthread"); !names.empty()) {
        setup_begin("kthread");
        out.push_back(make_kthread(names));
    }
}};

} // namespace initbench
