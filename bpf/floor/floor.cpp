// The floor probe's loader: floor.bpf.c's empty programs on what each value of `floor` names,
// a function's entry and return (FUNCTION), its entry alone (entry:FUNCTION, as span hooks
// its two functions), by fentry/fexit or kprobes as `attach` chooses (bpf/core/attach.h), or a
// raw tracepoint (tp_btf:NAME, as wakeups hooks sched_wakeup). Its record says how it
// attached; the runner adds what its programs cost (bpf/core/probe_cost.h).
#include "bpf/floor/floor_probe.h"

#include "bpf/core/attach.h"
#include "bpf/core/libbpf_log.h"
#include "bpf/core/setup_times.h"
#include "common/config.h"
#include "floor.skel.h"

#include <bpf/libbpf.h>
#include <cerrno>
#include <optional>
#include <string_view>

namespace initbench {
namespace {

using Skel = Skeleton<floor_bpf, floor_bpf__destroy>;

// What one value of `floor` names.
struct Target {
    enum class Kind { entry_and_return, entry, tracepoint } kind = Kind::entry_and_return;
    std::string name; // the function, or the tracepoint
};

Target parse_target(std::string_view value) {
    if (value.starts_with("entry:"))
        return {Target::Kind::entry, std::string(value.substr(6))};
    if (value.starts_with("tp_btf:"))
        return {Target::Kind::tracepoint, std::string(value.substr(7))};
    return {Target::Kind::entry_and_return, std::string(value)};
}

class Floor final : public Probe {
public:
    Floor(std::string value, const std::string& mode) : value_(std::move(value)), target_(parse_target(value_)) {
        if (target_.kind == Target::Kind::tracepoint) {
            mechanism_ = "tp_btf/" + target_.name;
            load_tracepoint(reason_);
            return;
        }
        auto used = attach_functions({target_.name}, mode,
                                     [this](Mechanism m, std::string& why) { return load_function(m, why); }, reason_);
        const Mechanism m = used.value_or(Mechanism::fentry);
        mechanism_ = target_.kind == Target::Kind::entry ? (m == Mechanism::fentry ? "fentry" : "kprobe")
                                                          : mechanism_name(m);
    }

    std::string name() const override { return "floor"; }
    bool supported() const override { return skel_ != nullptr; }
    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "floor"}, {"function", value_}};
        describe_attach(d, supported(), mechanism_, reason_);
        return d;
    }
    std::vector<const bpf_object*> bpf_objects() const override { return skeleton_objects(skel_); }
    void phase_begin() override {}
    nlohmann::json phase_end() override { return describe(); }

private:
    bool load_function(Mechanism m, std::string& reason) {
        LibbpfLogCapture log;
        Skel skel = open_skeleton<Skel>(floor_bpf__open, log, reason);
        if (!skel)
            return false;
        bpf_program__set_autoload(skel->progs.tp_btf_nothing, false);
        std::vector<FunctionHook> hooks = {
            {skel->progs.fentry_entry, skel->progs.kprobe_entry, &skel->links.kprobe_entry, target_.name, false}};
        if (target_.kind == Target::Kind::entry_and_return)
            hooks.push_back(
                {skel->progs.fexit_exit, skel->progs.kretprobe_exit, &skel->links.kretprobe_exit, target_.name, true});
        else
            for (bpf_program* unused : {skel->progs.fexit_exit, skel->progs.kretprobe_exit})
                bpf_program__set_autoload(unused, false);
        if (!load_and_attach_hooks(skel.get(), hooks, m, floor_bpf__load, floor_bpf__attach, log, reason))
            return false;
        skel_ = std::move(skel);
        return true;
    }

    bool load_tracepoint(std::string& reason) {
        LibbpfLogCapture log;
        Skel skel = open_skeleton<Skel>(floor_bpf__open, log, reason);
        if (!skel)
            return false;
        for (bpf_program* unused : {skel->progs.fentry_entry, skel->progs.kprobe_entry, skel->progs.fexit_exit,
                                    skel->progs.kretprobe_exit})
            bpf_program__set_autoload(unused, false);
        std::optional<SetupStep> step(std::in_place, "target");
        if (int err = bpf_program__set_attach_target(skel->progs.tp_btf_nothing, 0, target_.name.c_str()); err) {
            if (err == -ESRCH) { // libbpf found no btf_trace_NAME
                reason = mechanism_ + ": the kernel's BTF has no tracepoint " + target_.name;
                return false;
            }
            return log.failed(reason, mechanism_ + ": target", -err);
        }
        step.emplace("load");
        if (int err = floor_bpf__load(skel.get()); err)
            return log.failed(reason, mechanism_ + ": load", -err);
        step.emplace("attach");
        if (int err = floor_bpf__attach(skel.get()); err)
            return log.failed(reason, mechanism_ + ": attach", -err);
        skel_ = std::move(skel);
        return true;
    }

    std::string value_;
    Target target_;
    std::string mechanism_;
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
