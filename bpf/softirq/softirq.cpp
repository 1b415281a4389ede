// The softirq probe's user side: loads softirq.bpf.c, zeroes its per-CPU state when a phase's
// window opens, sums the CPUs when it closes and writes the record: all vectors together,
// each vector that ran, and the run times' log2 histogram.
#include "bpf/softirq/softirq_probe.h"

#include "bpf/core/libbpf_log.h"
#include "bpf/core/log2.h"
#include "bpf/core/per_cpu.h"
#include "bpf/core/setup_times.h"
#include "common/config.h"
#include "common/record_types.h"
#include "softirq.skel.h"

#include <algorithm>
#include <bpf/libbpf.h>
#include <optional>
#include <vector>

namespace initbench {
namespace {

using Skel = Skeleton<softirq_bpf, softirq_bpf__destroy>;

constexpr std::string_view kMechanism = "raw_tp/softirq_entry";

void add(softirq_vector& to, const softirq_vector& from) {
    to.count += from.count;
    to.time_ns += from.time_ns;
    to.max_ns = std::max(to.max_ns, from.max_ns);
    to.waits += from.waits;
    to.wait_ns += from.wait_ns;
    to.wait_max_ns = std::max(to.wait_max_ns, from.wait_max_ns);
}

// The CPUs' state summed: the totals of each vector and the histogram.
softirq_cpu sum_cpus(const std::vector<softirq_cpu>& per_cpu) {
    softirq_cpu t{};
    for (const softirq_cpu& c : per_cpu) {
        for (int v = 0; v < SOFTIRQ_VECTORS; v++)
            add(t.vec[v], c.vec[v]);
        for (int i = 0; i < SOFTIRQ_LOG2_SLOTS; i++)
            t.log2[i] += c.log2[i];
    }
    return t;
}

double mean(uint64_t sum, uint64_t n) { return double(sum) / double(n); }

class Softirq final : public PerCpuProbe<softirq_cpu> {
public:
    Softirq() {
        LibbpfLogCapture log;
        Skel skel = open_skeleton<Skel>(softirq_bpf__open, log, reason_);
        if (!skel)
            return;
        std::optional<SetupStep> step(std::in_place, "load");
        if (int err = softirq_bpf__load(skel.get()); err) {
            log.failed(reason_, "load", -err);
            return;
        }
        step.emplace("attach");
        if (int err = softirq_bpf__attach(skel.get()); err) {
            log.failed(reason_, "attach", -err);
            return;
        }
        skel_ = std::move(skel);
    }

    std::string name() const override { return "softirq"; }

    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "softirq"}};
        describe_attach(d, supported(), std::string(kMechanism), reason_);
        return d;
    }

private:
    const bpf_map* counts_map() const override { return skel_ ? skel_->maps.cpus : nullptr; }
    std::vector<const bpf_object*> bpf_objects() const override { return skeleton_objects(skel_); }

    nlohmann::json record(const std::vector<softirq_cpu>& per_cpu, nlohmann::json r) const override {
        const softirq_cpu total = sum_cpus(per_cpu);
        RecordBuilder b(softirq_record, r);
        r["unit"] = "ns";
        softirq_vector all{};
        nlohmann::json vectors = nlohmann::json::array();
        for (int v = 0; v < SOFTIRQ_VECTORS; v++) {
            const softirq_vector& s = total.vec[v];
            add(all, s);
            if (s.count == 0 && s.waits == 0)
                continue; // a vector that did not run in the window: no entry
            const std::string_view name = kSoftirqVectorNames[v];
            nlohmann::json e{{"vector", name}, {"count", s.count}, {"time", s.time_ns}, {"max", s.max_ns}};
            b.metric("vectors.*.count", s.count, {name});
            b.metric("vectors.*.time", s.time_ns, {name});
            if (s.count) {
                e["avg"] = mean(s.time_ns, s.count);
                b.metric("vectors.*.avg", e["avg"], {name});
            }
            if (s.waits) {
                e["wait_avg"] = mean(s.wait_ns, s.waits);
                e["wait_max"] = s.wait_max_ns;
                b.metric("vectors.*.wait_avg", e["wait_avg"], {name});
            }
            vectors.push_back(std::move(e));
        }
        b.field("count", all.count);
        b.field("time", all.time_ns);
        // Without runs there is no run time, nor a wait without waits: absent, not 0.
        if (all.count) {
            b.field("avg", mean(all.time_ns, all.count));
            b.field("max", all.max_ns);
        }
        r["wait"] = {{"count", all.waits}};
        if (all.waits) {
            r["wait"]["avg"] = mean(all.wait_ns, all.waits);
            r["wait"]["max"] = all.wait_max_ns;
            b.metric("wait.avg", r["wait"]["avg"]);
            b.metric("wait.max", all.wait_max_ns);
        }
        r["vectors"] = std::move(vectors);
        add_percentiles(b, r, log2_percentiles(total.log2, SOFTIRQ_LOG2_SLOTS, all.max_ns));
        r["log2"] = log2_json(total.log2, SOFTIRQ_LOG2_SLOTS);
        return r;
    }

    std::string reason_;
    Skel skel_;
};

} // namespace

extern const ProbeSpec softirq_probe = {
    .name = "softirq",
    .make_on_flag = []() -> std::unique_ptr<Probe> { return std::make_unique<Softirq>(); }};

} // namespace initbench
