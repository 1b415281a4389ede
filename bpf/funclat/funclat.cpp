#include "bpf/funclat/funclat_probe.h"

#include "bpf/core/attach.h"
#include "bpf/core/kernel_symbols.h"
#include "bpf/core/libbpf_log.h"
#include "bpf/core/per_cpu.h"
#include "bpf/core/log2.h"
#include "bpf/core/setup_times.h"
#include "funclat.skel.h"
#include "funclat_switch.skel.h"
#include "common/config.h"
#include "common/linear_hist.h"
#include "common/record_types.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

namespace initbench {
namespace {

using Skel = Skeleton<funclat_bpf, funclat_bpf__destroy>;
using SwitchSkel = Skeleton<funclat_switch_bpf, funclat_switch_bpf__destroy>;

unsigned subtract_code(const std::string& subtract) {
    return subtract == "offcpu"    ? FUNCLAT_SUBTRACT_OFFCPU
           : subtract == "preempt" ? FUNCLAT_SUBTRACT_PREEMPT
                                   : FUNCLAT_SUBTRACT_NONE;
}

class Funclat final : public PerCpuProbe<funclat_hist> {
public:
    Funclat(std::string function, const FunclatOptions& options)
        : fn_(std::move(function)), lin_(options.lin), options_(options) {
        lin_min_ns_ = static_cast<uint64_t>(lin_.min * lin_.unit_ns());
        lin_step_ns_ = std::max<uint64_t>(1, static_cast<uint64_t>(lin_.step * lin_.unit_ns()));
        lin_buckets_ = std::clamp(lin_.buckets(), 1u, unsigned(FUNCLAT_LIN_MAX_BUCKETS));
        attach();
    }

    std::string name() const override { return "funclat"; }

    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "funclat"}, {"function", fn_}, {"subtract", options_.subtract}};
        describe_attach(d, supported(), mechanism_name(mech_), reason_);
        if (supported() && options_.subtract != "none")
            d["switch_mechanism"] = btf_switch_ ? "tp_btf/sched_switch" : "tracepoint/sched/sched_switch";
        return d;
    }

private:
    // Every CPU's histogram, zeroed when the window opens so that min and max are the phase's own.
    const bpf_map* counts_map() const override { return skel_ ? skel_->maps.hist : nullptr; }
    std::vector<const bpf_object*> bpf_objects() const override {
        auto out = skeleton_objects(skel_);
        if (switch_skel_)
            out.push_back(switch_skel_->obj);
        return out;
    }

    void attach() {
        // Switched-out time comes from the BTF-typed sched_switch (it knows preemptions) or,
        // on a kernel without BTF, from the classic tracepoint.
        btf_switch_ = options_.subtract != "none" && kernel_has_btf();
        auto used = attach_functions({fn_}, options_.mode,
                                     [this](Mechanism m, std::string& why) { return try_load(m, why); }, reason_);
        if (used)
            mech_ = *used;
    }

    bool try_load(Mechanism m, std::string& reason) {
        LibbpfLogCapture log;
        Skel skel = open_skeleton<Skel>(funclat_bpf__open, log, reason);
        if (!skel)
            return false;
        std::optional<SetupStep> step;
        skel->rodata->lin_min_ns = lin_min_ns_;
        skel->rodata->lin_step_ns = lin_step_ns_;
        skel->rodata->lin_buckets = lin_buckets_;
        skel->rodata->subtract = subtract_code(options_.subtract);
        const bool classic_switch = options_.subtract != "none" && !btf_switch_;
        bpf_program__set_autoload(skel->progs.classic_switch, classic_switch);
        const bool fentry = m == Mechanism::fentry;
        const std::vector<FunctionHook> hooks = {
            {skel->progs.fentry_entry, skel->progs.kprobe_entry, &skel->links.kprobe_entry, fn_, false},
            {skel->progs.fexit_exit, skel->progs.kretprobe_exit, &skel->links.kretprobe_exit, fn_, true}};
        step.emplace("target");
        select_hooks(hooks, m);
        step.emplace("load");
        int err = funclat_bpf__load(skel.get());
        step.reset();
        if (err)
            return log.failed(reason, "load", -err);
        SwitchSkel switch_skel;
        if (btf_switch_ && !load_btf_switch(skel.get(), switch_skel, reason))
            return false;
        SetupStep attach_step("attach");
        if (fentry) {
            if (int err = funclat_bpf__attach(skel.get()); err)
                return log.attach_failed(reason, -err);
        } else {
            if (classic_switch) {
                skel->links.classic_switch = bpf_program__attach(skel->progs.classic_switch);
                if (!skel->links.classic_switch)
                    return log.failed(reason, "attach sched_switch", errno);
            }
            std::string why;
            if (!attach_kprobes(hooks, why)) {
                reason = "attach: " + log.last_or(why);
                return false;
            }
        }
        skel_ = std::move(skel);
        switch_skel_ = std::move(switch_skel);
        return true;
    }

    // The BTF-typed sched_switch program, in its own object, sharing the calls map.
    bool load_btf_switch(funclat_bpf* main, SwitchSkel& out, std::string& reason) {
        LibbpfLogCapture log;
        SetupStep step("switch");
        SwitchSkel skel(funclat_switch_bpf__open());
        if (!skel)
            return log.failed(reason, "open sched_switch", errno);
        skel->rodata->subtract = subtract_code(options_.subtract);
        int err = bpf_map__reuse_fd(skel->maps.calls, bpf_map__fd(main->maps.calls));
        if (!err)
            err = funclat_switch_bpf__load(skel.get());
        if (!err)
            err = funclat_switch_bpf__attach(skel.get());
        if (err)
            return log.failed(reason, "tp_btf/sched_switch", -err);
        out = std::move(skel);
        return true;
    }

    nlohmann::json record(const std::vector<funclat_hist>& per_cpu, nlohmann::json r) const override {
        funclat_hist t{};
        bool any = false;
        for (const auto& h : per_cpu) {
            t.count += h.count;
            t.sum_ns += h.sum_ns;
            t.entries += h.entries;
            t.missed += h.missed;
            t.switched_out += h.switched_out;
            t.subtracted_ns += h.subtracted_ns;
            if (h.count && (!any || h.min_ns < t.min_ns))
                t.min_ns = h.min_ns;
            t.max_ns = std::max(t.max_ns, h.max_ns);
            any = any || h.count;
            for (int i = 0; i < FUNCLAT_LOG2_SLOTS; i++)
                t.log2[i] += h.log2[i];
            for (unsigned i = 0; i < lin_buckets_ + 2; i++)
                t.lin[i] += h.lin[i];
        }
        RecordBuilder b(funclat_record, r);
        r["unit"] = "ns";
        b.field("count", t.count);
        b.field("sum", t.sum_ns);
        // Without calls there is no latency: the fields say 0, as they always did, and no
        // metric claims it.
        auto latency = [&](MetricName name, const nlohmann::json& v) {
            t.count ? b.field(name, v) : void(r[std::string(name.text)] = v);
        };
        latency("min", t.min_ns);
        latency("max", t.max_ns);
        latency("avg", t.count ? double(t.sum_ns) / double(t.count) : 0.0);
        // A kretprobe tracks only so many calls in flight (maxactive, by default 2 per CPU
        // and at least 10): with many threads asleep inside the function, most returns are
        // lost, and entries says so.
        b.field("entries", t.entries);
        b.field("missed", t.missed);
        if (options_.subtract != "none") {
            r["switched_out"] = {{"calls", t.switched_out}, {"subtracted", t.subtracted_ns}};
            b.metric("switched_out.calls", t.switched_out);
            b.metric("switched_out.subtracted", t.subtracted_ns);
        }
        add_percentiles(b, r, percentiles(t));
        r["log2"] = log2_json(t.log2, FUNCLAT_LOG2_SLOTS);
        std::vector<uint64_t> buckets(t.lin + 1, t.lin + 1 + lin_buckets_);
        r["linear"] = {{"unit", lin_.unit}, {"min", lin_.min}, {"step", lin_.step},
                       {"max", lin_.min + lin_.step * lin_buckets_}, {"under", t.lin[0]},
                       {"over", t.lin[lin_buckets_ + 1]}, {"buckets", buckets}};
        return r;
    }

    // From the linear histogram where the rank falls inside its range (finer), else log2.
    nlohmann::json percentiles(const funclat_hist& t) const {
        std::vector<Bucket> log2 = log2_bucket_list(t.log2, FUNCLAT_LOG2_SLOTS), lin;
        lin.push_back({0, double(lin_min_ns_), t.lin[0]});
        for (unsigned i = 0; i < lin_buckets_; i++)
            lin.push_back({double(lin_min_ns_ + i * lin_step_ns_), double(lin_min_ns_ + (i + 1) * lin_step_ns_),
                           t.lin[i + 1]});
        lin.push_back({double(lin_min_ns_ + lin_buckets_ * lin_step_ns_), double(t.max_ns), t.lin[lin_buckets_ + 1]});
        nlohmann::json out = nlohmann::json::object();
        for (double p : {50.0, 90.0, 99.0}) {
            auto v = percentile(lin, p);
            bool in_range = v && *v >= double(lin_min_ns_) && *v < lin.back().lo;
            if (!in_range)
                v = percentile(log2, p);
            if (v)
                out["p" + std::to_string(int(p))] = std::clamp(*v, double(t.min_ns), double(t.max_ns));
        }
        return out;
    }

    std::string fn_;
    LinearHistogramSpec lin_;
    FunclatOptions options_;
    uint64_t lin_min_ns_ = 0, lin_step_ns_ = 1;
    unsigned lin_buckets_ = 1;
    Mechanism mech_ = Mechanism::fentry;
    std::string reason_;
    bool btf_switch_ = false;
    Skel skel_;
    SwitchSkel switch_skel_; // after skel_: destroyed first
};

} // namespace

std::unique_ptr<Probe> make_funclat(const std::string& function, const FunclatOptions& options) {
    return std::make_unique<Funclat>(function, options);
}

extern const ProbeSpec funclat_probe = {"funclat", [](const Config& config, std::vector<std::unique_ptr<Probe>>& out) {
    FunclatOptions options;
    std::string why; // the key's own check already refused a bad spec
    options.lin = parse_linear_hist(config.str("funclat.hist"), why).value_or(LinearHistogramSpec{});
    options.mode = config.str("attach");
    options.subtract = config.str("funclat.subtract");
    for (const auto& fn : config.list("funclat")) {
        setup_begin("funclat " + fn);
        out.push_back(make_funclat(fn, options));
    }
}};

} // namespace initbench
