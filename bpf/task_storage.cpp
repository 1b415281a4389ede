#include "bpf/task_storage_probe.h"

#include "bpf/libbpf_log.h"
#include "bpf/setup_times.h"
#include "bpf/task_storage.h"
#include "task_storage.skel.h"

#include <bpf/libbpf.h>
#include <cstring>
#include <optional>
#include <vector>

namespace initbench {
namespace {

struct SkelDeleter {
    void operator()(task_storage_bpf* s) const { task_storage_bpf__destroy(s); }
};

class TaskStorageChurn final : public Probe {
public:
    TaskStorageChurn() {
        ncpus_ = static_cast<size_t>(std::max(1, libbpf_num_possible_cpus()));
        LibbpfLogCapture log;
        std::optional<SetupStep> step(std::in_place, "open");
        std::unique_ptr<task_storage_bpf, SkelDeleter> skel(task_storage_bpf__open());
        if (!skel) {
            reason_ = "open: " + log.last_or(std::strerror(errno));
            return;
        }
        // Task storage and BTF-typed tracepoints: 5.11+ with BTF.
        step.emplace("load");
        if (int err = task_storage_bpf__load(skel.get()); err) {
            reason_ = "load: " + log.last_or(std::strerror(-err));
            return;
        }
        step.emplace("attach");
        if (int err = task_storage_bpf__attach(skel.get()); err) {
            reason_ = "attach: " + log.last_or(std::strerror(-err));
            return;
        }
        skel_ = std::move(skel);
    }

    std::string name() const override { return "task_storage_churn"; }
    bool supported() const override { return skel_ != nullptr; }
    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "task_storage_churn"}, {"supported", supported()},
                         {"comm_prefix", TASK_STORAGE_COMM_PREFIX}};
        if (supported())
            d["mechanism"] = "tp_btf/sched_wakeup";
        else
            d["reason"] = reason_;
        return d;
    }

    void phase_begin() override {
        if (!skel_)
            return;
        std::vector<task_storage_counts> zero(ncpus_);
        uint32_t key = 0;
        bpf_map__update_elem(skel_->maps.counts, &key, sizeof key, zero.data(),
                             zero.size() * sizeof(task_storage_counts), BPF_ANY);
    }

    void window_end() override {
        total_ = {};
        if (!skel_)
            return;
        std::vector<task_storage_counts> per_cpu(ncpus_);
        uint32_t key = 0;
        if (bpf_map__lookup_elem(skel_->maps.counts, &key, sizeof key, per_cpu.data(),
                                 per_cpu.size() * sizeof(task_storage_counts), 0) != 0)
            return;
        for (const auto& c : per_cpu) {
            total_.created += c.created;
            total_.deleted += c.deleted;
            total_.failed += c.failed;
        }
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        if (skel_) {
            r["created"] = total_.created;
            r["deleted"] = total_.deleted;
            r["failed"] = total_.failed;
        }
        return r;
    }

private:
    size_t ncpus_ = 1;
    std::string reason_;
    task_storage_counts total_{};
    std::unique_ptr<task_storage_bpf, SkelDeleter> skel_;
};

} // namespace

std::unique_ptr<Probe> make_task_storage_churn() { return std::make_unique<TaskStorageChurn>(); }

} // namespace initbench
