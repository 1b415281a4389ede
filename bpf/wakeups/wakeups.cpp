#include "bpf/wakeups/wakeups_probe.h"

#include "bpf/core/kernel_symbols.h"
#include "bpf/core/libbpf_log.h"
#include "bpf/core/per_cpu.h"
#include "bpf/core/setup_times.h"
#include "common/config.h"
#include "common/record_types.h"
#include "sys/mapping.h"
#include "sys/procfs.h"
#include "wakeups.skel.h"
#include "wakeups_btf.skel.h"

#include <algorithm>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace initbench {
namespace {

// An array map (BPF_F_MMAPABLE) mapped into init's memory, where clearing or counting it
// costs no system call per id.
class MappedArray {
public:
    bool map(const bpf_map* map, std::string& why) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t length =
            (size_t{bpf_map__value_size(map)} * bpf_map__max_entries(map) + page - 1) / page * page;
        if (!mapping_.map(length, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map))) {
            why = std::string("mapping ") + bpf_map__name(map) + ": " + strerror(errno);
            return false;
        }
        return true;
    }

    std::span<volatile uint64_t> words() const {
        return {static_cast<volatile uint64_t*>(mapping_.data()),
                mapping_.size() / sizeof(uint64_t)};
    }
    std::span<volatile uint8_t> bytes() const {
        return {static_cast<volatile uint8_t*>(mapping_.data()), mapping_.size()};
    }

private:
    Mapping mapping_;
};

template <typename T>
uint64_t count_nonzero(std::span<volatile T> values) {
    return static_cast<uint64_t>(std::count_if(values.begin(), values.end(), [](T v) { return v != 0; }));
}

template <typename T>
void clear(std::span<volatile T> values) {
    for (volatile T& v : values)
        v = 0;
}

// The maps both objects have, and the BTF object's arrays; `owner` destroys the skeleton
// that holds them.
struct LoadedSets {
    std::shared_ptr<void> owner;
    const bpf_object* obj = nullptr;
    bpf_map* threads = nullptr;
    bpf_map* processes = nullptr;
    bpf_map* mms = nullptr;
    bpf_map* counts = nullptr;
    std::shared_ptr<MappedArray> thread_mm;     // BTF only: a word per thread id
    std::shared_ptr<MappedArray> process_flags; // BTF only: a byte per process id
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
    out = {skel, skel->obj, skel->maps.threads, skel->maps.processes, skel->maps.mms, skel->maps.counts, {}, {}};
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
        if (sets_.thread_mm) {
            // thread_mm last: a thread woken meanwhile and still found marked skips its
            // process and mm, which must then not be cleared after it.
            clear(sets_.process_flags->bytes());
            clear(sets_.thread_mm->words());
        }
        zero_error_ = zero_per_cpu_why<wakeup_counts>(sets_.counts);
    }

    void window_end() override {
        if (!supported())
            return;
        snap_ = nlohmann::json::object();
        uint64_t threads = count_keys<uint32_t>(sets_.threads, false);
        uint64_t processes = count_keys<uint32_t>(sets_.processes, false);
        if (sets_.thread_mm) {
            threads += count_nonzero(sets_.thread_mm->words());
            processes += count_nonzero(sets_.process_flags->bytes());
        }
        snap_["threads"] = threads;
        // Without the task pointer only thread ids are known: the rest is absent, not 0.
        snap_["processes"] = btf() ? nlohmann::json(processes) : nullptr;
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
        // The arrays hold the ids up to kernel.pid_max now; larger ones (pid_max raised later,
        // for a load of many tasks) go to the hash sets.
        const auto ids = static_cast<uint32_t>(
            std::clamp<uint64_t>(read_uint("/proc/sys/kernel/pid_max").value_or(kPidMaxDefault), 8, kPidMaxLimit));
        LoadedSets sets;
        if (!load_sets<wakeups_btf_bpf>(
                wakeups_btf_bpf__open, wakeups_btf_bpf__load, wakeups_btf_bpf__attach, wakeups_btf_bpf__destroy,
                sets, why, [fentry, user, ids](wakeups_btf_bpf* skel) {
                    skel->rodata->user_only = user;
                    bpf_program__set_autoload(skel->progs.fentry_ttwu, fentry);
                    bpf_program__set_autoload(skel->progs.btf_wakeup, !fentry);
                    bpf_map__set_max_entries(skel->maps.thread_mm, ids);
                    bpf_map__set_max_entries(skel->maps.process_flags, (ids + 7) / 8);
                }))
            return false;
        const auto* skel = static_cast<const wakeups_btf_bpf*>(sets.owner.get());
        sets.thread_mm = std::make_shared<MappedArray>();
        sets.process_flags = std::make_shared<MappedArray>();
        if (!sets.thread_mm->map(skel->maps.thread_mm, why) || !sets.process_flags->map(skel->maps.process_flags, why))
            return false;
        sets_ = std::move(sets);
        return true;
    }

    static constexpr uint64_t kPidMaxDefault = 32768;  // the kernel's PID_MAX_DEFAULT
    static constexpr uint64_t kPidMaxLimit = 4194304;  // and its PID_MAX_LIMIT (64-bit)

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
