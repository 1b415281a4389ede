#include "bpf/span/span_probe.h"

#include "bpf/core/attach.h"
#include "bpf/core/libbpf_log.h"
#include "bpf/core/log2.h"
#include "bpf/core/per_cpu.h"
#include "bpf/core/setup_times.h"
#include "bpf/span/span_samples.h"
#include "span.skel.h"
#include "common/config.h"
#include "common/result.h"
#include "common/record_types.h"

#include <bpf/libbpf.h>
#include <cmath>
#include <cstring>
#include <optional>

namespace initbench {
namespace {

using Skel = Skeleton<span_bpf, span_bpf__destroy>;

struct State {
    uint64_t from_ts;
    span_stats s;
};

class Span final : public Probe {
public:
    Span(std::string from, std::string to, const std::string& mode) : from_(std::move(from)), to_(std::move(to)) {
        auto used = attach_functions({from_, to_}, mode, [this](Mechanism m, std::string& why) { return load(m, why); },
                                     reason_);
        if (used)
            mech_ = *used;
    }

    std::string name() const override { return "span"; }
    bool supported() const override { return skel_ != nullptr; }
    std::vector<const bpf_object*> bpf_objects() const override { return skeleton_objects(skel_); }

    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "span"}, {"from", from_}, {"to", to_}};
        describe_attach(d, supported(), mechanism_name(mech_), reason_);
        return d;
    }

    void phase_begin() override {
        if (!skel_)
            return;
        State zero{};
        uint32_t key = 0;
        // Statistics that were not zeroed would add the last phase's spans to this one's.
        const int err = bpf_map__update_elem(skel_->maps.span, &key, sizeof key, &zero, sizeof zero, BPF_ANY);
        window_error_ = err ? Error{"zeroing the span statistics", -err}.message() : "";
        samples_.clear();
        last_sample_ = {};
    }

    // The totals since phase_begin; a failed read repeats the last ones (an empty interval).
    void sample() override {
        State now{};
        uint32_t key = 0;
        if (skel_ && bpf_map__lookup_elem(skel_->maps.span, &key, sizeof key, &now, sizeof now, 0) == 0)
            last_sample_ = now.s;
        samples_.add(last_sample_.count, last_sample_.sum_ns);
    }

    // Settled (bpf/core/settled_read.h): a span ending while the state is copied could be in the
    // count and not yet in its bucket.
    void window_end() override {
        snap_ = {};
        if (!skel_ || !window_error_.empty())
            return;
        auto read = read_settled<State>(skel_->maps.span, 1, "reading the span statistics");
        if (read)
            snap_ = read.value()[0];
        else
            window_error_ = read.error().message();
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        if (!skel_)
            return r;
        if (!window_error_.empty()) {
            r["error"] = window_error_; // statistics that could not be zeroed or read: none
            return r;
        }
        const span_stats& s = snap_.s;
        const double n = double(s.count);
        RecordBuilder b(span_record, r);
        r["unit"] = "ns";
        b.field("count", s.count);
        // Without spans there is no latency: the fields say 0, as they always did, and no
        // metric claims it.
        auto latency = [&](MetricName name, const nlohmann::json& v) {
            s.count ? b.field(name, v) : void(r[std::string(name.text)] = v);
        };
        latency("min", s.min_ns);
        latency("max", s.max_ns);
        latency("avg", s.count ? double(s.sum_ns) / n : 0.0);
        if (s.count > 1) {
            double sum_us = double(s.sum_ns) / 1e3;
            double var_us2 = (double(s.sum_sq_us2) - sum_us * sum_us / n) / (n - 1);
            b.field("stddev", std::sqrt(std::max(var_us2, 0.0)) * 1e3);
        } else {
            r["stddev"] = nullptr; // undefined for fewer than two spans
        }
        b.field("unmatched_to", s.unmatched_to);
        r["log2"] = log2_json(s.log2, SPAN_LOG2_SLOTS);
        add_percentiles(b, r, log2_percentiles(s.log2, SPAN_LOG2_SLOTS, s.max_ns));
        r["samples"] = samples_.to_json();
        b.metric("samples.avg_ns_stddev", r["samples"].value("avg_ns_stddev", nlohmann::json()));
        return r;
    }

private:
    bool load(Mechanism m, std::string& why) {
        LibbpfLogCapture log;
        Skel skel = open_skeleton<Skel>(span_bpf__open, log, why);
        if (!skel)
            return false;
        const std::vector<FunctionHook> hooks = {
            {skel->progs.fentry_from, skel->progs.kprobe_from, &skel->links.kprobe_from, from_, false},
            {skel->progs.fentry_to, skel->progs.kprobe_to, &skel->links.kprobe_to, to_, false}};
        if (!load_and_attach_hooks(skel.get(), hooks, m, span_bpf__load, span_bpf__attach, log, why))
            return false;
        skel_ = std::move(skel);
        return true;
    }

    std::string from_, to_;
    Mechanism mech_ = Mechanism::fentry;
    std::string reason_;
    State snap_{};
    std::string window_error_; // why the window has no statistics, "" when it has
    span_stats last_sample_{};
    SpanSamples samples_;
    Skel skel_;
};

} // namespace

std::unique_ptr<Probe> make_span(const std::string& from, const std::string& to, const std::string& mode) {
    return std::make_unique<Span>(from, to, mode);
}

extern const ProbeSpec span_probe = {"span", [](const Config& config, std::vector<std::unique_ptr<Probe>>& out) {
    const std::string span = config.str("span"); // FROM:TO, checked by the key
    if (span.empty())
        return;
    setup_begin("span " + span);
    out.push_back(make_span(span.substr(0, span.find(':')), span.substr(span.find(':') + 1), config.str("attach")));
}};

} // namespace initbench
