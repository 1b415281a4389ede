#include "bpf/kthread/kthread_probe.h"
#include "bpf/core/setup_times.h"
#include "bpf/span/span_samples.h"
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

    void phase_begin() override {
        begin_ = selected();
        last_seen_.clear();
        stime_samples_.clear();
        last_stime_ = stime_since_begin();
    }

    // At each of the phase's sampling points: the stime ticks of the threads matched at the
    // phase's start, per interval (how the RCU seed's bench sampled the Tasks Trace kthread).
    // Only those pids are read: walking /proc among 15 000 sleepers would be the load.
    void sample() override {
        const uint64_t now = stime_since_begin();
        stime_samples_.push_back(now - last_stime_);
        last_stime_ = now;
    }

    void window_end() override {
        end_ = selected();
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        RecordBuilder metrics(kthread_record, r);
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
        r["samples"] = {{"stime", stime_samples_}};
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

    // The stime ticks of the threads matched at phase_begin since then; a thread that
    // ended counts its last reading.
    uint64_t stime_since_begin() {
        uint64_t sum = 0;
        for (const auto& [pid, b] : begin_) {
            if (auto st = read_proc_stat(pid); st && st->comm == b.comm)
                last_seen_[pid] = st->stime;
            auto seen = last_seen_.find(pid);
            sum += (seen != last_seen_.end() ? seen->second : b.stime) - b.stime;
        }
        return sum;
    }

    std::vector<std::string> names_;
    std::map<int, ProcStat> begin_, end_;
    std::map<int, uint64_t> last_seen_; // stime at the latest sample, by pid
    std::vector<uint64_t> stime_samples_;
    uint64_t last_stime_ = 0;
};

} // namespace

// "Ticks per grace period": a kthread's CPU ticks divided by the spans in the same phase.
void add_ticks_per_span(nlohmann::json& probe_results) {
    const nlohmann::json* span = nullptr;
    for (const auto& r : probe_results)
        if (r.value("probe", "") == "span" && r.value("count", 0) > 0)
            span = &r;
    if (!span)
        return;
    for (auto& r : probe_results) {
        if (r.value("probe", "") != "kthread")
            continue;
        RecordBuilder metrics(declared_type("probe", "kthread"), r);
        metrics.field("ticks_per_span", r.value("ticks", 0.0) / (*span)["count"].get<double>());
        // Per sampling interval, as the RCU seed's bench: stime ticks over the spans ended.
        const auto stime = r.value("/samples/stime"_json_pointer, std::vector<uint64_t>{});
        const auto counts = span->value("/samples/count"_json_pointer, std::vector<uint64_t>{});
        r["stime_per_span"] = per_span_in_intervals(stime, counts);
        metrics.metric("stime_per_span.avg", r["stime_per_span"].is_null()
                                                 ? nlohmann::json(nullptr)
                                                 : r["stime_per_span"]["avg"]);
    }
}

std::unique_ptr<Probe> make_kthread(const std::vector<std::string>& names) {
    return std::make_unique<Kthread>(names);
}

extern const ProbeSpec kthread_probe = {"kthread", [](const Config& config, std::vector<std::unique_ptr<Probe>>& out) {
    if (auto names = config.list("kthread"); !names.empty()) {
        setup_begin("kthread");
        out.push_back(make_kthread(names));
    }
}, add_ticks_per_span};

} // namespace initbench
