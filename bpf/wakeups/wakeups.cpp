#include "bpf/wakeups/wakeups_probe.h"

#include "bpf/core/kernel_symbols.h"
#include "bpf/core/libbpf_log.h"
#include "bpf/core/per_cpu.h"
#include "bpf/core/setup_times.h"
#include "wakeups.skel.h"
#include "wakeups_btf.skel.h"
#include "common/config.h"
#include "common/record_types.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cstring>
#include <functional>
#include <optional>
#include <unistd.h>
#include <vector>

namespace initbench {
namespace {

// The maps both objects have; `owner` destroys the skeleton that holds them.
struct LoadedSets {
    std::shared_ptr<void> owner;
    const bpf_object* obj = nullptr;
    bpf_map* threads = nullptr;
    bpf_map* processes = nullptr;
    bpf_map* mms = nullptr;
    bpf_map* counts = nullptr;
};

// Opens, loads and attaches one of the two skeletons (same map names, different programs);
// `configure` picks programs and settings between open and load.
template <typename Skel>
bool load_sets(Skel* (*open)(), int (*load)(Skel*), int (*attach)(Skel*), void (*destroy)(Skel*),
               LoadedSets& out, std::string& why, const std::function<void(Skel*)>& configure = {}) {
    LibbpfLogCapture log;
    std::optional<SetupStep> step(std::in_place, "open");
    std::shared_ptr<Skel> skel(open(), [destroy](Skel* s) { destroy(s); });
    if (!skel.get())
        return log.failed(why, "open", errno);
    if (configure)
        configure(skel.get());
    step.emplace("load");
    if (int err = load(skel.get()); err)
        return log.failed(why, "load", -err);
    step.emplace("attach");
    if (int err = attach(skel.get()); err)
        return log.failed(why, "attach", -err);
    out = {skel, skel->obj, skel->maps.threads, skel->maps.processes, skel->maps.mms, skel->maps.counts};
    return true;
}

// Counts the keys (window end), or deletes them (phase start). One pass collects them
// first: deleting as it walked meant restarting from the first key after each delete, and
// a load that re-inserted keys faster than the walk deleted them (200 sleepers under
// --clock icount) kept it going forever. Keys added during the pass are left for the next.
template <typename Key>
uint64_t count_keys(bpf_map* map, bool erase) {
    int fd = bpf_map__fd(map);
    std::vector<Key> keys;
    Key key{}, next{};
    Key* prev = nullptr;
    while (bpf_map_get_next_key(fd, prev, &next) == 0 && keys.size() < WAKEUPS_MAX_KEYS) {
        keys.push_back(next);
        key = next;
        prev = &key;
    }
    if (erase)
        for (const Key& k : keys)
            bpf_map_delete_elem(fd, &k);
    return keys.size();
}

class Wakeups final : public Probe {
public:
    explicit Wakeups(std::string tasks) : user_(tasks == "user") {
        std::string btf_why = "no kernel BTF (/sys/kernel/btf/vmlinux)";
        if (kernel_has_btf()) {
            if (user_) {
                // The seed's hook first: fentry/try_to_wake_up; its tracepoint if fentry fails.
                std::string fentry_why;
                if (load_btf(true, fentry_why)) {
                    mechanism_ = "fentry/try_to_wake_up";
                    return;
                }
                if (load_btf(false, btf_why)) {
                    mechanism_ = "tp_btf/sched_wakeup";
                    reason_ = "fentry/try_to_wake_up: " + fentry_why +
                              "; the tracepoint counts actual wake-ups, not every try_to_wake_up call";
                    return;
                }
                reason_ = "fentry/try_to_wake_up: " + fentry_why + "; tp_btf/sched_wakeup: " + btf_why;
                return;
            }
            if (load_btf(false, btf_why)) {
                mechanism_ = "tp_btf/sched_wakeup";
                return;
            }
        }
        if (user_) {
            // The classic tracepoint gives a pid only: it cannot tell user tasks from kernel threads.
            reason_ = "tasks=user needs p->mm: tp_btf/sched_wakeup: " + btf_why;
            return;
        }
        std::string classic_why;
        if (load_sets(wakeups_bpf__open, wakeups_bpf__load, wakeups_bpf__attach, wakeups_bpf__destroy, sets_,
                      classic_why)) {
            mechanism_ = "tracepoint/sched/sched_wakeup";
            reason_ = "tp_btf/sched_wakeup: " + btf_why + "; processes and mms need it";
            return;
        }
        reason_ = "tp_btf/sched_wakeup: " + btf_why + "; tracepoint sched_wakeup: " + classic_why;
    }

    std::string name() const override { return "wakeups"; }
    bool supported() const override { return sets_.owner != nullptr; }
    std::vector<const bpf_object*> bpf_objects() const override {
        return sets_.obj ? std::vector<const bpf_object*>{sets_.obj} : std::vector<const bpf_object*>{};
    }

    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "wakeups"}, {"tasks", user_ ? "user" : "all"}};
        describe_attach(d, supported(), mechanism_, reason_);
        return d;
    }

    void phase_begin() override {
        if (!supported())
            return;
        count_keys<uint32_t>(sets_.threads, true);
        count_keys<uint32_t>(sets_.processes, true);
        count_keys<uint64_t>(sets_.mms, true);
        zero_error_ = zero_per_cpu_why<wakeup_counts>(sets_.counts);
    }

    void window_end() override {
        if (!supported())
            return;
        snap_ = nlohmann::json::object();
        snap_["threads"] = count_keys<uint32_t>(sets_.threads, false);
        // Without the task pointer only thread ids are known: the rest is absent, not 0.
        snap_["processes"] = btf() ? nlohmann::json(count_keys<uint32_t>(sets_.processes, false)) : nullptr;
        snap_["mms"] = btf() ? nlohmann::json(count_keys<uint64_t>(sets_.mms, false)) : nullptr;
        auto per_cpu = read_per_cpu<wakeup_counts>(sets_.counts);
        if (!zero_error_.empty() || !per_cpu) {
            // Counts that could not be zeroed or read are absent, not 0.
            snap_ = {{"error", !zero_error_.empty() ? zero_error_ : per_cpu.error().message()}};
            return;
        }
        wakeup_counts total{};
        for (const auto& c : per_cpu.value()) {
            total.wakeups += c.wakeups;
            total.dropped += c.dropped;
        }
        snap_["wakeups"] = total.wakeups;
        snap_["dropped"] = total.dropped;
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        if (!supported())
            return r;
        r.update(snap_);
        if (r.contains("error"))
            return r;
        // Null (processes and mms without BTF) is not measured: no metric.
        RecordBuilder b(wakeups_record, r);
        for (MetricName name : {MetricName("threads"), MetricName("processes"), MetricName("mms"),
                                MetricName("wakeups"), MetricName("dropped")})
            b.metric(name, r[std::string(name.text)]);
        return r;
    }

private:
    bool btf() const { return mechanism_ != "tracepoint/sched/sched_wakeup"; }

    bool load_btf(bool fentry, std::string& why) {
        const bool user = user_;
        return load_sets<wakeups_btf_bpf>(
            wakeups_btf_bpf__open, wakeups_btf_bpf__load, wakeups_btf_bpf__attach, wakeups_btf_bpf__destroy, sets_,
            why, [fentry, user](wakeups_btf_bpf* skel) {
                skel->rodata->user_only = user;
                bpf_program__set_autoload(skel->progs.fentry_ttwu, fentry);
                bpf_program__set_autoload(skel->progs.btf_wakeup, !fentry);
            });
    }

    std::string zero_error_;
    bool user_ = false;
    std::string mechanism_;
    std::string reason_;
    nlohmann::json snap_ = nlohmann::json::object();
    LoadedSets sets_;
};

} // namespace

std::unique_ptr<Probe> make_wakeups(const std::string& tasks) { return std::make_unique<Wakeups>(tasks); }

extern const ProbeSpec wakeups_probe = {"wakeups", [](const Config& config, std::vector<std::unique_ptr<Probe>>& out) {
    if (config.flag("wakeups")) {
        setup_begin("wakeups");
        out.push_back(make_wakeups(config.str("wakeups.tasks")));
    }
}};

} // namespace initbench
