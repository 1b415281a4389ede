#include "bpf/funclat_probe.h"

#include "bpf/funclat.h"
#include "bpf/kernel_symbols.h"
#include "bpf/libbpf_log.h"
#include "funclat.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmath>
#include <cstring>
#include <vector>

namespace initbench {
namespace {

struct SkelDeleter {
    void operator()(funclat_bpf* s) const { funclat_bpf__destroy(s); }
};
using Skel = std::unique_ptr<funclat_bpf, SkelDeleter>;

enum class Mechanism { fentry, kprobe };

class Funclat final : public Probe {
public:
    Funclat(std::string function, LinearHistogramSpec lin) : fn_(std::move(function)), lin_(lin) {
        lin_min_ns_ = static_cast<uint64_t>(lin_.min * lin_.unit_ns());
        lin_step_ns_ = std::max<uint64_t>(1, static_cast<uint64_t>(lin_.step * lin_.unit_ns()));
        lin_buckets_ = std::clamp(lin_.buckets(), 1u, unsigned(FUNCLAT_LIN_MAX_BUCKETS));
        attach();
    }

    std::string name() const override { return "funclat"; }
    bool supported() const override { return skel_ != nullptr; }

    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "funclat"}, {"function", fn_}, {"supported", supported()}};
        if (supported())
            d["mechanism"] = mech_ == Mechanism::fentry ? "fentry/fexit" : "kprobe/kretprobe";
        if (!reason_.empty())
            d[supported() ? "fallback_reason" : "reason"] = reason_;
        return d;
    }

    void phase_begin() override {
        if (!skel_)
            return;
        // Zero every CPU's histogram so that min/max are the phase's own.
        std::vector<funclat_hist> zero(ncpus_);
        uint32_t key = 0;
        bpf_map__update_elem(skel_->maps.hist, &key, sizeof key, zero.data(),
                             zero.size() * sizeof(funclat_hist), BPF_ANY);
    }

    // Snapshot when the window closes: stopping the load must not add to the phase.
    void window_end() override {
        snapshot_error_.clear();
        per_cpu_.assign(ncpus_, funclat_hist{});
        if (!skel_)
            return;
        uint32_t key = 0;
        if (bpf_map__lookup_elem(skel_->maps.hist, &key, sizeof key, per_cpu_.data(),
                                 per_cpu_.size() * sizeof(funclat_hist), 0) != 0)
            snapshot_error_ = std::string("reading the histogram: ") + std::strerror(errno);
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        if (!skel_)
            return r;
        if (!snapshot_error_.empty()) {
            r["error"] = snapshot_error_;
            return r;
        }
        return merge(per_cpu_, std::move(r));
    }

private:
    void attach() {
        ncpus_ = static_cast<size_t>(std::max(1, libbpf_num_possible_cpus()));
        std::string btf_error;
        const bool in_btf = function_in_btf(fn_, btf_error);
        if (in_btf && try_load(Mechanism::fentry))
            return;
        std::string fentry_reason = in_btf ? reason_ : btf_error.empty() ? "function not in BTF" : btf_error;
        if (!function_in_kallsyms(fn_)) {
            reason_ = in_btf ? "fentry: " + fentry_reason + "; kprobe: function not in kallsyms"
                             : "function not found in BTF or kallsyms (absent, inlined or static in this kernel)";
            return;
        }
        if (try_load(Mechanism::kprobe)) {
            reason_ = "fentry unavailable: " + fentry_reason;
            return;
        }
        reason_ = "fentry: " + fentry_reason + "; kprobe: " + reason_;
    }

    bool try_load(Mechanism m) {
        LibbpfLogCapture log;
        Skel skel(funclat_bpf__open());
        if (!skel) {
            reason_ = "open: " + log.last_or(std::strerror(errno));
            return false;
        }
        skel->rodata->lin_min_ns = lin_min_ns_;
        skel->rodata->lin_step_ns = lin_step_ns_;
        skel->rodata->lin_buckets = lin_buckets_;
        bool fentry = m == Mechanism::fentry;
        bpf_program__set_autoload(skel->progs.fentry_entry, fentry);
        bpf_program__set_autoload(skel->progs.fexit_exit, fentry);
        bpf_program__set_autoload(skel->progs.kprobe_entry, !fentry);
        bpf_program__set_autoload(skel->progs.kretprobe_exit, !fentry);
        if (fentry) {
            bpf_program__set_attach_target(skel->progs.fentry_entry, 0, fn_.c_str());
            bpf_program__set_attach_target(skel->progs.fexit_exit, 0, fn_.c_str());
        }
        if (int err = funclat_bpf__load(skel.get()); err) {
            reason_ = "load: " + log.last_or(std::strerror(-err));
            return false;
        }
        if (fentry) {
            if (int err = funclat_bpf__attach(skel.get()); err) {
                reason_ = "attach: " + log.last_or(std::strerror(-err)) + " (errno " +
                          std::to_string(-err) + ")";
                return false;
            }
        } else {
            skel->links.kprobe_entry = bpf_program__attach_kprobe(skel->progs.kprobe_entry, false, fn_.c_str());
            skel->links.kretprobe_exit = bpf_program__attach_kprobe(skel->progs.kretprobe_exit, true, fn_.c_str());
            if (!skel->links.kprobe_entry || !skel->links.kretprobe_exit) {
                reason_ = "attach: " + log.last_or(std::strerror(errno));
                return false;
            }
        }
        mech_ = m;
        skel_ = std::move(skel);
        return true;
    }

    nlohmann::json merge(const std::vector<funclat_hist>& per_cpu, nlohmann::json r) const {
        funclat_hist t{};
        bool any = false;
        for (const auto& h : per_cpu) {
            t.count += h.count;
            t.sum_ns += h.sum_ns;
            t.missed += h.missed;
            if (h.count && (!any || h.min_ns < t.min_ns))
                t.min_ns = h.min_ns;
            t.max_ns = std::max(t.max_ns, h.max_ns);
            any = any || h.count;
            for (int i = 0; i < FUNCLAT_LOG2_SLOTS; i++)
                t.log2[i] += h.log2[i];
            for (unsigned i = 0; i < lin_buckets_ + 2; i++)
                t.lin[i] += h.lin[i];
        }
        r["unit"] = "ns";
        r["count"] = t.count;
        r["sum"] = t.sum_ns;
        r["min"] = t.min_ns;
        r["max"] = t.max_ns;
        r["avg"] = t.count ? double(t.sum_ns) / double(t.count) : 0.0;
        r["missed"] = t.missed;
        // log2 buckets as [upper bound in ns, count], non-empty ones only: compact on serial.
        nlohmann::json log2 = nlohmann::json::array();
        for (int i = 0; i < FUNCLAT_LOG2_SLOTS; i++)
            if (t.log2[i])
                log2.push_back({1ull << i, t.log2[i]});
        r["log2"] = std::move(log2);
        std::vector<uint64_t> buckets(t.lin + 1, t.lin + 1 + lin_buckets_);
        r["linear"] = {{"unit", lin_.unit}, {"min", lin_.min}, {"step", lin_.step},
                       {"max", lin_.min + lin_.step * lin_buckets_}, {"under", t.lin[0]},
                       {"over", t.lin[lin_buckets_ + 1]}, {"buckets", buckets}};
        return r;
    }

    std::string fn_;
    LinearHistogramSpec lin_;
    uint64_t lin_min_ns_ = 0, lin_step_ns_ = 1;
    unsigned lin_buckets_ = 1;
    size_t ncpus_ = 1;
    Mechanism mech_ = Mechanism::fentry;
    std::string reason_;
    std::vector<funclat_hist> per_cpu_;
    std::string snapshot_error_;
    Skel skel_;
};

} // namespace

std::unique_ptr<Probe> make_funclat(const std::string& function, const LinearHistogramSpec& lin) {
    return std::make_unique<Funclat>(function, lin);
}

} // namespace initbench
