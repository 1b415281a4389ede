// The walk-through's toy probe, its user side: loads exits.bpf.c and sums its per-CPU
// counts over each phase's window.
#include "bpf/exits/exits_probe.h"

#include "bpf/core/libbpf_log.h"
#include "bpf/core/per_cpu.h"
#include "bpf/core/setup_times.h"
#include "common/config.h"
#include "common/record_types.h"
#include "exits.skel.h"

#include <bpf/libbpf.h>

namespace initbench {
namespace {

using Skel = Skeleton<exits_bpf, exits_bpf__destroy>;

class Exits final : public PerCpuProbe<exits_cpu> {
public:
    Exits() {
        LibbpfLogCapture log;
        Skel skel(exits_bpf__open_and_load());
        if (!skel) {
            log.failed(reason_, "open and load", errno);
            return;
        }
        if (int err = exits_bpf__attach(skel.get()); err) {
            log.failed(reason_, "attach", -err);
            return;
        }
        skel_ = std::move(skel);
    }

    std::string name() const override { return "exits"; }

    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "exits"}};
        describe_attach(d, supported(), "raw_tp/sched_process_exit", reason_);
        return d;
    }

private:
    const bpf_map* counts_map() const override { return skel_ ? skel_->maps.cpus : nullptr; }
    std::vector<const bpf_object*> bpf_objects() const override { return skeleton_objects(skel_); }

    nlohmann::json record(const std::vector<exits_cpu>& per_cpu, nlohmann::json r) const override {
        unsigned long long exits = 0;
        for (const exits_cpu& c : per_cpu)
            exits += c.exits;
        RecordBuilder(exits_record, r).field("exits", exits);
        return r;
    }

    std::string reason_;
    Skel skel_;
};

} // namespace

extern const ProbeSpec exits_probe = {
    .name = "exits",
    .make_on_flag = []() -> std::unique_ptr<Probe> { return std::make_unique<Exits>(); }};

} // namespace initbench
