// The floor probe's loader: floor.bpf.c's two empty programs on one function, by fentry/fexit
// or kprobes as `attach` chooses (bpf/core/attach.h). Its record says how it attached; the
// runner adds what its programs cost (bpf/core/probe_cost.h).
#include "bpf/floor/floor_probe.h"

#include "bpf/core/attach.h"
#include "bpf/core/libbpf_log.h"
#include "bpf/core/setup_times.h"
#include "common/config.h"
#include "floor.skel.h"

#include <bpf/libbpf.h>
#include <optional>

namespace initbench {
namespace {

struct SkelDeleter {
    void operator()(floor_bpf* s) const { floor_bpf__destroy(s); }
};
using Skel = std::unique_ptr<floor_bpf, SkelDeleter>;

class Floor final : public Probe {
public:
    Floor(std::string function, const std::string& mode) : fn_(std::move(function)) {
        auto used = attach_functions({fn_}, mode, [this](Mechanism m, std::string& why) { return try_load(m, why); },
                                     reason_);
        if (used)
            mech_ = *used;
    }

    std::string name() const override { return "floor"; }
    bool supported() const override { return skel_ != nullptr; }
    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "floor"}, {"function", fn_}};
        describe_attach(d, supported(), mechanism_name(mech_), reason_);
        return d;
    }
    std::vector<const bpf_object*> bpf_objects() const override { return skeleton_objects(skel_); }
    void phase_begin() override {}
    nlohmann::json phase_end() override { return describe(); }

private:
    bool try_load(Mechanism m, std::string& reason) {
        LibbpfLogCapture log;
        std::optional<SetupStep> step(std::in_place, "open");
        Skel skel(floor_bpf__open());
        step.reset();
        if (!skel)
            return log.failed(reason, "open", errno);
        const std::vector<FunctionHook> hooks = {
            {skel->progs.fentry_entry, skel->progs.kprobe_entry, &skel->links.kprobe_entry, fn_, false},
            {skel->progs.fexit_exit, skel->progs.kretprobe_exit, &skel->links.kretprobe_exit, fn_, true}};
        if (!load_and_attach_hooks(skel.get(), hooks, m, floor_bpf__load, floor_bpf__attach, log, reason))
            return false;
        skel_ = std::move(skel);
        return true;
    }

    std::string fn_;
    Mechanism mech_ = Mechanism::fentry;
    std::string reason_;
    Skel skel_;
};

} // namespace

std::unique_ptr<Probe> make_floor(const std::string& function, const std::string& mode) {
    return std::make_unique<Floor>(function, mode);
}

extern const ProbeSpec floor_probe = {"floor", [](const Config& config, std::vector<std::unique_ptr<Probe>>& out) {
    for (const auto& fn : config.list("floor")) {
        setup_begin("floor " + fn);
        out.push_back(make_floor(fn, config.str("attach")));
    }
}};

} // namespace initbench
