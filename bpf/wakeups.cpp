#include "bpf/wakeups_probe.h"

#include "bpf/libbpf_log.h"
#include "bpf/wakeups.h"
#include "wakeups.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cstring>
#include <unistd.h>
#include <vector>

namespace initbench {
namespace {

struct SkelDeleter {
    void operator()(wakeups_bpf* s) const { wakeups_bpf__destroy(s); }
};

// Deletes every key (phase start) or counts them (window end).
template <typename Key>
uint64_t count_keys(bpf_map* map, bool erase) {
    int fd = bpf_map__fd(map);
    uint64_t n = 0;
    Key key{}, next{};
    Key* prev = nullptr;
    while (bpf_map_get_next_key(fd, prev, &next) == 0) {
        if (erase) {
            bpf_map_delete_elem(fd, &next); // restart from the beginning: the old key is gone
            prev = nullptr;
        } else {
            key = next;
            prev = &key;
        }
        n++;
    }
    return n;
}

class Wakeups final : public Probe {
public:
    Wakeups() {
        ncpus_ = static_cast<size_t>(std::max(1, libbpf_num_possible_cpus()));
        std::string btf_why;
        if (load(true, btf_why))
            return;
        std::string classic_why;
        if (load(false, classic_why)) {
            reason_ = "tp_btf/sched_wakeup: " + btf_why + "; processes and mms need it";
            return;
        }
        reason_ = "tp_btf/sched_wakeup: " + btf_why + "; tracepoint sched_wakeup: " + classic_why;
    }

    std::string name() const override { return "wakeups"; }
    bool supported() const override { return skel_ != nullptr; }

    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "wakeups"}};
        describe_attach(d, supported(), btf_ ? "tp_btf/sched_wakeup" : "tracepoint/sched/sched_wakeup", reason_);
        return d;
    }

    void phase_begin() override {
        if (!skel_)
            return;
        count_keys<uint32_t>(skel_->maps.threads, true);
        count_keys<uint32_t>(skel_->maps.processes, true);
        count_keys<uint64_t>(skel_->maps.mms, true);
        std::vector<wakeup_counts> zero(ncpus_);
        uint32_t key = 0;
        bpf_map__update_elem(skel_->maps.counts, &key, sizeof key, zero.data(), zero.size() * sizeof(wakeup_counts),
                             BPF_ANY);
    }

    void window_end() override {
        if (!skel_)
            return;
        snap_ = nlohmann::json::object();
        snap_["threads"] = count_keys<uint32_t>(skel_->maps.threads, false);
        // Without the task pointer only thread ids are known: the rest is absent, not 0.
        snap_["processes"] = btf_ ? nlohmann::json(count_keys<uint32_t>(skel_->maps.processes, false)) : nullptr;
        snap_["mms"] = btf_ ? nlohmann::json(count_keys<uint64_t>(skel_->maps.mms, false)) : nullptr;
        std::vector<wakeup_counts> per_cpu(ncpus_);
        uint32_t key = 0;
        wakeup_counts total{};
        if (bpf_map__lookup_elem(skel_->maps.counts, &key, sizeof key, per_cpu.data(),
                                 per_cpu.size() * sizeof(wakeup_counts), 0) == 0)
            for (const auto& c : per_cpu) {
                total.wakeups += c.wakeups;
                total.dropped += c.dropped;
            }
        snap_["wakeups"] = total.wakeups;
        snap_["dropped"] = total.dropped;
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        if (skel_)
            r.update(snap_);
        return r;
    }

private:
    bool load(bool btf, std::string& why) {
        LibbpfLogCapture log;
        std::unique_ptr<wakeups_bpf, SkelDeleter> skel(wakeups_bpf__open());
        if (!skel) {
            why = "open: " + log.last_or(std::strerror(errno));
            return false;
        }
        bpf_program__set_autoload(skel->progs.btf_wakeup, btf);
        bpf_program__set_autoload(skel->progs.classic_wakeup, !btf);
        if (int err = wakeups_bpf__load(skel.get()); err) {
            why = "load: " + log.last_or(std::strerror(-err));
            return false;
        }
        if (int err = wakeups_bpf__attach(skel.get()); err) {
            why = "attach: " + log.last_or(std::strerror(-err));
            return false;
        }
        btf_ = btf;
        skel_ = std::move(skel);
        return true;
    }

    size_t ncpus_ = 1;
    bool btf_ = false;
    std::string reason_;
    nlohmann::json snap_ = nlohmann::json::object();
    std::unique_ptr<wakeups_bpf, SkelDeleter> skel_;
};

} // namespace

std::unique_ptr<Probe> make_wakeups() { return std::make_unique<Wakeups>(); }

} // namespace initbench
