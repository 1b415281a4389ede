#include "bpf/core/probe_cost.h"

#include "common/record_types.h"
#include "sys/sys.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <unistd.h>

namespace initbench {
namespace {

constexpr const char* kSysctl = "/proc/sys/kernel/bpf_stats_enabled";

double online_cpus() { return double(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN))); }

nlohmann::json unsupported(const std::string& reason) {
    return {{"supported", false}, {"reason", reason}};
}

} // namespace

BpfRunStats::BpfRunStats(bool wanted) {
    if (!wanted) {
        reason_ = "turned off (initbench.probe_cost=0)";
        return;
    }
    fd_ = bpf_enable_stats(BPF_STATS_RUN_TIME);
    if (fd_ >= 0) {
        method_ = "BPF_ENABLE_STATS";
        return;
    }
    const int enable_errno = errno;
    auto before = read_file(kSysctl);
    if (!before) {
        reason_ = std::string("the kernel counts no BPF run time: BPF_ENABLE_STATS (Linux 5.8): ") +
                  std::strerror(enable_errno) + "; kernel.bpf_stats_enabled (Linux 5.1): " +
                  before.error().message();
        return;
    }
    method_ = "sysctl kernel.bpf_stats_enabled";
    if (before.value().rfind('1', 0) == 0)
        return; // on already: left on
    if (Status s = write_file(kSysctl, "1"); !s) {
        reason_ = "turning on kernel.bpf_stats_enabled: " + s.error().message();
        return;
    }
    restore_ = before.value();
}

BpfRunStats::~BpfRunStats() {
    if (fd_ >= 0)
        ::close(fd_);
    if (!restore_.empty())
        (void)write_file(kSysctl, restore_);
}

Result<std::vector<ProgramRuns>> program_runs(const std::vector<const bpf_object*>& objects) {
    std::vector<ProgramRuns> out;
    for (const bpf_object* obj : objects) {
        bpf_program* prog = nullptr;
        bpf_object__for_each_program(prog, obj) {
            const int fd = bpf_program__fd(prog);
            if (fd < 0)
                continue; // not loaded: the other mechanism's twin
            bpf_prog_info info{};
            uint32_t len = sizeof info;
            if (int err = bpf_obj_get_info_by_fd(fd, &info, &len))
                return Error{std::string("reading ") + bpf_program__name(prog) + "'s bpf_prog_info", -err};
            // The kernel fills what it knows of the struct: an older one stops before these.
            if (len < offsetof(bpf_prog_info, run_cnt) + sizeof info.run_cnt)
                return Error{"the kernel's bpf_prog_info has no run_time_ns and run_cnt (Linux 5.1)"};
            out.push_back({bpf_program__name(prog), info.run_cnt, info.run_time_ns});
        }
    }
    return out;
}

void ProbeCosts::open(const std::vector<std::unique_ptr<Probe>>& probes) {
    windows_.assign(probes.size(), Window{});
    for (size_t i = 0; i < probes.size(); i++)
        if (auto objects = probes[i]->bpf_objects(); !objects.empty()) {
            windows_[i].runs_programs = true;
            if (stats_.on())
                windows_[i].first = program_runs(objects);
        }
}

void ProbeCosts::close(const std::vector<std::unique_ptr<Probe>>& probes, const std::string& phase,
                       double window_s) {
    window_s_ = window_s;
    if (!totals_.count(phase))
        phase_order_.push_back(phase);
    Total& total = totals_[phase];
    total.cpu_s += window_s * online_cpus();
    if (!stats_.on())
        return;
    for (size_t i = 0; i < probes.size() && i < windows_.size(); i++)
        if (auto objects = probes[i]->bpf_objects(); !objects.empty())
            windows_[i].last = program_runs(objects);
}

void ProbeCosts::add(size_t i, nlohmann::json& record, const std::string& phase) {
    if (i >= windows_.size() || !windows_[i].runs_programs || !record.value("supported", false))
        return;
    if (!stats_.on()) {
        record["cost"] = unsupported(stats_.reason());
        return;
    }
    const Window& w = windows_[i];
    if (!w.first || !w.last) {
        record["cost"] = unsupported(!w.first ? w.first.error().message() : w.last.error().message());
        return;
    }
    auto cost = window_cost(w.first.value(), w.last.value(), window_s_ * online_cpus());
    if (!cost) {
        record["cost"] = unsupported(cost.error().message());
        return;
    }
    nlohmann::json& c = cost.value();
    c["method"] = stats_.method();
    Total& total = totals_[phase];
    total.runs += c["runs"].get<uint64_t>();
    total.ns += c["ns"].get<uint64_t>();
    const nlohmann::json cpu_pct = c["cpu_pct"], ns_per_run = c["ns_per_run"];
    record["cost"] = std::move(c);
    if (const RecordType* type = find_record_type("probe", record.value("probe", ""))) {
        RecordBuilder b(*type, record);
        b.metric("cost.cpu_pct", cpu_pct);
        b.metric("cost.ns_per_run", ns_per_run);
    }
}

nlohmann::json ProbeCosts::totals() const {
    if (!stats_.on())
        return unsupported(stats_.reason());
    nlohmann::json phases = nlohmann::json::object();
    for (const std::string& phase : phase_order_) {
        const Total& t = totals_.at(phase);
        phases[phase] = {{"runs", t.runs}, {"ns", t.ns},
                         {"cpu_pct", t.cpu_s > 0 ? 100.0 * double(t.ns) / 1e9 / t.cpu_s : 0.0}};
    }
    return {{"supported", true}, {"method", stats_.method()}, {"phases", std::move(phases)}};
}

} // namespace initbench
