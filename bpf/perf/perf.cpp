// The perf probe: the counters of bpf/perf/perf_counters.h opened per phase.
#include "bpf/core/probe.h"
#include "bpf/core/setup_times.h"
#include "bpf/perf/perf_counters.h"
#include "bpf/perf/perf_probe.h"

namespace initbench {
namespace {

class PerfProbe final : public Probe {
public:
    explicit PerfProbe(const Config& config)
        : events_(configured_events(config)), system_(config.str("perf.scope") == "system") {
        if (system_)
            target_.cpus = online_cpu_list();
        else
            target_.inherit = true; // init forks the load: its tasks inherit the counters
        // A trial open says up front which events this kernel has.
        CounterSet trial = CounterSet::open(events_, target_);
        for (const auto& v : trial.read())
            if (v.open_errno)
                unsupported_.push_back(unsupported_counter_json(*v.spec, v.open_errno));
        supported_ = trial.any_open();
        first_errno_ = trial.first_errno();
    }

    std::string name() const override { return "perf"; }
    bool supported() const override { return supported_; }

    nlohmann::json describe() const override {
        nlohmann::json d{
            {"probe", "perf"}, {"scope", system_ ? "system" : "task"}, {"supported", supported_}};
        if (system_)
            d["cpus"] = target_.cpus;
        if (supported_) // as every probe that works says how (record version 2)
            d["mechanism"] = "perf_event_open";
        else
            d["reason"] = "no perf event could be opened: " + errno_text(first_errno_);
        if (supported_ && !unsupported_.empty())
            d["unsupported"] = unsupported_;
        return d;
    }

    void before_load() override {
        if (supported_)
            set_ = CounterSet::open(events_, target_);
    }
    void phase_begin() override {
        set_.enable();
        t0_ = monotonic_seconds();
    }
    void window_end() override {
        set_.disable();
        elapsed_ = monotonic_seconds() - t0_;
    }
    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        r.erase("unsupported"); // each counter says so itself
        if (!supported_)
            return r;
        RecordBuilder b(declared_type("probe", "perf"), r);
        b.field("elapsed_s", elapsed_);
        r["counters"] = counters_json(set_.read(), elapsed_);
        add_counter_metrics(b, r["counters"], "counters.*.value", "value");
        set_ = CounterSet();
        return r;
    }

private:
    std::vector<PerfEventSpec> events_;
    bool system_;
    CounterTarget target_;
    bool supported_ = false;
    int first_errno_ = 0;
    nlohmann::json unsupported_ = nlohmann::json::array();
    CounterSet set_;
    double t0_ = 0, elapsed_ = 0;
};


} // namespace

extern const ProbeSpec perf_probe = {"perf", [](const Config& config, std::vector<std::unique_ptr<Probe>>& out) {
    if (!config.list("perf").empty()) {
        setup_begin("perf");
        out.push_back(std::make_unique<PerfProbe>(config));
    }
}};

} // namespace initbench
