#include "bpf/schedstat/schedstat_probe.h"

#include "common/text.h"
#include "sys/sys.h"
#include "bpf/core/setup_times.h"
#include "common/config.h"
#include "common/record_types.h"

#include <charconv>

namespace initbench {

Schedstat parse_schedstat(std::string_view text) {
    Schedstat s;
    std::string cpu;
    for (auto line : split_lines(text)) {
        auto w = split_words(line);
        if (w.size() < 2)
            continue;
        auto numbers = [](auto first, auto last) {
            std::vector<uint64_t> v;
            for (auto it = first; it != last; ++it) {
                uint64_t x = 0;
                std::from_chars(it->data(), it->data() + it->size(), x);
                v.push_back(x);
            }
            return v;
        };
        if (w[0] == "version") {
            std::from_chars(w[1].data(), w[1].data() + w[1].size(), s.version);
        } else if (w[0].rfind("cpu", 0) == 0) {
            cpu = std::string(w[0]);
            s.cpus[cpu] = numbers(w.begin() + 1, w.end());
        } else if (w[0].rfind("domain", 0) == 0 && !cpu.empty()) {
            std::string key = cpu + "/" + std::string(w[0]);
            s.masks[key] = std::string(w[1]);
            s.domains[key] = numbers(w.begin() + 2, w.end());
        }
    }
    return s;
}

// Documented in the kernel's Documentation/scheduler/sched-stats.rst (version 15); the names
// are the record's declaration's (schedstat_probe.h).
const std::vector<std::string>& schedstat_cpu_fields(int version) {
    static const std::vector<std::string> v15(std::begin(kSchedstatCpuFields),
                                              std::end(kSchedstatCpuFields));
    static const std::vector<std::string> none;
    return version == 15 ? v15 : none;
}

const std::vector<std::string>& schedstat_domain_fields(int version) {
    static const std::vector<std::string> v15(std::begin(kSchedstatDomainFields),
                                              std::end(kSchedstatDomainFields));
    static const std::vector<std::string> none;
    return version == 15 ? v15 : none;
}

namespace {

// Named when the layout is known and the count matches, else the raw deltas in order.
nlohmann::json named_deltas(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                            const std::vector<std::string>& names) {
    std::vector<uint64_t> d;
    for (size_t i = 0; i < std::min(a.size(), b.size()); i++)
        d.push_back(b[i] - a[i]);
    if (names.size() != d.size())
        return d;
    nlohmann::json out = nlohmann::json::object();
    for (size_t i = 0; i < d.size(); i++)
        if (names[i] != "legacy_zero")
            out[names[i]] = d[i];
    return out;
}

} // namespace

void add_schedstat_deltas(nlohmann::json& r, const Schedstat& begin, const Schedstat& end) {
    r["version"] = end.version;
    nlohmann::json cpus = nlohmann::json::object(), domains = nlohmann::json::object();
    for (const auto& [cpu, v] : end.cpus)
        if (auto b = begin.cpus.find(cpu); b != begin.cpus.end())
            cpus[cpu] = named_deltas(b->second, v, schedstat_cpu_fields(end.version));
    for (const auto& [dom, v] : end.domains)
        if (auto b = begin.domains.find(dom); b != begin.domains.end())
            domains[dom] = {{"mask", end.masks.at(dom)},
                            {"deltas", named_deltas(b->second, v, schedstat_domain_fields(end.version))}};
    // The named deltas are the metrics; raw ones (a layout it does not know) are not.
    RecordBuilder b(schedstat_record, r);
    for (const auto& [cpu, fields] : cpus.items())
        if (fields.is_object())
            for (const auto& [field, v] : fields.items())
                b.metric("cpus.*.*", v, {cpu, field});
    for (const auto& [dom, d] : domains.items())
        if (d.at("deltas").is_object())
            for (const auto& [field, v] : d.at("deltas").items())
                b.metric("domains.*.deltas.*", v, {dom, field});
    r["cpus"] = std::move(cpus);
    r["domains"] = std::move(domains);
}

namespace {

class SchedstatProbe final : public Probe {
public:
    SchedstatProbe() {
        auto text = read_file("/proc/schedstat");
        if (!text) {
            reason_ = text.error().message() + " (kernel without CONFIG_SCHEDSTATS?)";
            return;
        }
        // Most counters only move while schedstats are enabled at run time.
        if (auto s = write_file("/proc/sys/kernel/sched_schedstats", "1"); !s)
            enable_note_ = "could not enable kernel.sched_schedstats: " + s.error().message();
        supported_ = true;
    }

    std::string name() const override { return "schedstat"; }
    bool supported() const override { return supported_; }
    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "schedstat"}, {"supported", supported_}};
        if (!reason_.empty())
            d["reason"] = reason_;
        if (!enable_note_.empty())
            d["warning"] = enable_note_;
        return d;
    }

    void phase_begin() override { begin_ = snapshot(); }
    void window_end() override { end_ = snapshot(); }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        if (!supported_)
            return r;
        add_schedstat_deltas(r, begin_, end_);
        return r;
    }

private:
    static Schedstat snapshot() { return parse_schedstat(read_file("/proc/schedstat").value_or("")); }

    bool supported_ = false;
    std::string reason_, enable_note_;
    Schedstat begin_, end_;
};

} // namespace

extern const ProbeSpec schedstat_probe = {
    .name = "schedstat",
    .make_on_flag = []() -> std::unique_ptr<Probe> { return std::make_unique<SchedstatProbe>(); }};

} // namespace initbench
