#include "bpf/task_storage/task_storage_probe.h"

#include "bpf/core/attach.h"
#include "bpf/core/kernel_symbols.h"
#include "bpf/core/libbpf_log.h"
#include "bpf/core/per_cpu.h"
#include "bpf/core/setup_times.h"
#include "task_storage.skel.h"
#include "common/config.h"
#include "common/record_types.h"

#include <bpf/libbpf.h>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

namespace initbench {
namespace {

using Skel = Skeleton<task_storage_bpf, task_storage_bpf__destroy>;

constexpr std::string_view kSyscallPrefix = "syscall:";

// The kernel function a system call enters through on this architecture: the wrapper that
// takes pt_regs where the kernel has syscall wrappers (x86_64 since 4.17, arm64 since 4.19),
// else sys_NAME. Empty when the kernel has none of them.
std::string syscall_entry(const std::string& name, std::string& tried) {
#if defined(__x86_64__)
    const std::vector<std::string> candidates = {"__x64_sys_" + name, "sys_" + name};
#elif defined(__aarch64__)
    const std::vector<std::string> candidates = {"__arm64_sys_" + name, "sys_" + name};
#else
    const std::vector<std::string> candidates = {"sys_" + name};
#endif
    for (const auto& c : candidates) {
        std::string btf_error;
        if (function_in_btf(c, btf_error) || function_in_kallsyms(c))
            return c;
        tried += (tried.empty() ? "" : ", ") + c;
    }
    return "";
}

class TaskStorageChurn final : public Probe {
public:
    // `on` empty: each wake-up of the sleep load's tasks (tp_btf/sched_wakeup); else each
    // call of that kernel function, or of the entry of "syscall:NAME", on the current task
    // (fentry, else kprobe).
    TaskStorageChurn(std::string on, const std::string& mode) : on_(std::move(on)) {
        if (on_.empty()) {
            load(std::nullopt, reason_);
            return;
        }
        if (on_.starts_with(kSyscallPrefix)) {
            syscall_ = on_.substr(kSyscallPrefix.size());
            std::string tried;
            std::string entry = syscall_entry(syscall_, tried);
            if (entry.empty()) { // on_ stays "syscall:NAME" for the record
                reason_ = "no entry function for the system call " + syscall_ + " (tried " + tried + ")";
                error_ = "task_storage_churn.on: " + reason_;
                return;
            }
            on_ = std::move(entry);
        }
        auto used = attach_functions({on_}, mode, [this](Mechanism m, std::string& why) { return load(m, why); },
                                     reason_);
        if (used)
            mech_ = *used;
        else if (!function_in_kallsyms(on_)) // a typo, not a kernel that cannot: the churn is the load
            error_ = "task_storage_churn.on: " + on_ + " is not a function of this kernel";
    }

    std::string name() const override { return "task_storage_churn"; }
    bool supported() const override { return skel_ != nullptr; }
    std::vector<const bpf_object*> bpf_objects() const override { return skeleton_objects(skel_); }
    std::string setup_error() const override { return error_; }
    nlohmann::json describe() const override {
        nlohmann::json d{{"probe", "task_storage_churn"}};
        if (on_.empty())
            d["comm_prefix"] = TASK_STORAGE_COMM_PREFIX;
        else
            d["function"] = on_;
        if (!syscall_.empty())
            d["syscall"] = syscall_;
        const char* mechanism = on_.empty() ? "tp_btf/sched_wakeup" : mech_ == Mechanism::fentry ? "fentry" : "kprobe";
        describe_attach(d, supported(), mechanism, reason_);
        return d;
    }

    void phase_begin() override {
        if (skel_)
            read_error_ = zero_per_cpu_why<task_storage_counts>(skel_->maps.counts);
    }

    void window_end() override {
        total_ = {};
        if (!skel_)
            return;
        if (!read_error_.empty())
            return;
        auto per_cpu = read_per_cpu<task_storage_counts>(skel_->maps.counts);
        if (!per_cpu) {
            read_error_ = per_cpu.error().message();
            return;
        }
        for (const auto& c : per_cpu.value()) {
            total_.churned += c.churned;
            total_.delete_failed += c.delete_failed;
            total_.create_failed += c.create_failed;
        }
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        if (skel_ && !read_error_.empty()) {
            r["error"] = read_error_; // counts that could not be read are absent, not 0
        } else if (skel_) {
            RecordBuilder b(task_storage_record, r);
            b.field("created", total_.churned + total_.delete_failed);
            b.field("deleted", total_.churned);
            b.field("failed", total_.create_failed);
        }
        return r;
    }

private:
    // Loads the wake-up program (no mechanism) or the function's pair chosen by m.
    bool load(std::optional<Mechanism> m, std::string& why) {
        LibbpfLogCapture log;
        Skel skel = open_skeleton<Skel>(task_storage_bpf__open, log, why);
        if (!skel)
            return false;
        std::optional<SetupStep> step;
        const std::vector<FunctionHook> hooks = {
            {skel->progs.fentry_churn, skel->progs.kprobe_churn, &skel->links.kprobe_churn, on_, false}};
        bpf_program__set_autoload(skel->progs.churn, !m);
        if (m) {
            step.emplace("target");
            select_hooks(hooks, *m);
        } else {
            bpf_program__set_autoload(skel->progs.fentry_churn, false);
            bpf_program__set_autoload(skel->progs.kprobe_churn, false);
        }
        // Task storage and BTF-typed programs: 5.11+ with BTF.
        step.emplace("load");
        if (int err = task_storage_bpf__load(skel.get()); err)
            return log.failed(why, "load", -err);
        step.emplace("attach");
        if (m == Mechanism::kprobe) {
            if (std::string kprobe_why; !attach_kprobes(hooks, kprobe_why)) {
                why = "attach: " + log.last_or(kprobe_why);
                return false;
            }
        } else if (int err = task_storage_bpf__attach(skel.get()); err) {
            return log.failed(why, "attach", -err);
        }
        skel_ = std::move(skel);
        return true;
    }

    std::string on_;
    std::string syscall_; // from "syscall:NAME", whose entry on_ is
    Mechanism mech_ = Mechanism::fentry;
    std::string error_;
    std::string read_error_;
    std::string reason_;
    task_storage_counts total_{};
    Skel skel_;
};

} // namespace

std::unique_ptr<Probe> make_task_storage_churn(const std::string& on, const std::string& mode) {
    return std::make_unique<TaskStorageChurn>(on, mode);
}

// Setting task_storage_churn.on turns the probe on by itself.
extern const ProbeSpec task_storage_probe = {
    "task_storage_churn", [](const Config& config, std::vector<std::unique_ptr<Probe>>& out) {
        if (config.flag("task_storage_churn") || !config.str("task_storage_churn.on").empty()) {
            setup_begin("task_storage_churn");
            out.push_back(make_task_storage_churn(config.str("task_storage_churn.on"), config.str("attach")));
        }
    }};

} // namespace initbench
