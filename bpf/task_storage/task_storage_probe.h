/* task_storage_churn: creates and deletes BPF task-local storage on every wake-up of the
 * sleep load's tasks (comm "ib-sleep…"), reproducing the RCU Tasks Trace benchmark's load; or,
 * with `on` a kernel function, on the current task at each of its calls (the RCU seed's
 * program on getpgid). mode: initbench.attach.
 *
 * The probe's declaration, which the host builds too: in C, the counters its kernel side
 * (task_storage.bpf.c) keeps; in C++, its keys, its record's description and its maker
 * (task_storage.cpp). */
#pragma once

#define TASK_STORAGE_COMM_PREFIX "ib-sleep" /* the sleep load names its tasks so */
#define TASK_STORAGE_COMM_PREFIX_LEN 8

/* One counter per outcome, so that each call adds to exactly one: user space reads the
 * counters while calls run on other CPUs, and a "created" and a "deleted" counted apart
 * were seen one apart in such a read. created = churned + delete_failed, deleted = churned. */
struct task_storage_counts {
    unsigned long long churned;       /* created and deleted again */
    unsigned long long delete_failed; /* created, the delete refused */
    unsigned long long create_failed; /* no storage */
};

#ifdef __cplusplus
#include "bpf/core/probe.h"
#include "common/probe_decl.h"

#include <string>

namespace initbench {

// A kernel function's name as BTF and kallsyms spell it (foo, foo.isra.0); empty: not set.
inline bool is_function_name(std::string_view text) {
    return text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") ==
               std::string_view::npos &&
           !text.starts_with('.') && !(text.size() && text[0] >= '0' && text[0] <= '9');
}

// Where task_storage_churn hooks: a kernel function, or syscall:NAME for the entry of that
// system call on the running architecture.
inline std::string check_hook(std::string_view text) {
    constexpr std::string_view syscall = "syscall:";
    if (text.starts_with(syscall)) {
        text.remove_prefix(syscall.size());
        if (text.empty() || text.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string_view::npos)
            return "syscall:NAME needs a system call's name, like syscall:getpgid";
        return "";
    }
    return is_function_name(text) ? "" : "must be a kernel function name, or syscall:NAME for a system call's entry";
}

inline constexpr KeySpec task_storage_keys[] = {
    plain_key("task_storage_churn", Kind::flag, "0",
              "create and delete BPF task storage on every wake-up of the sleep load's tasks"),
    checked_key(plain_key("task_storage_churn.on", Kind::string, "",
                          "task_storage_churn on each call of this kernel function instead, on the "
                          "calling task: FUNCTION, or syscall:NAME for that system call's entry on "
                          "any architecture (syscall:getpgid); setting it turns the probe on"),
                check_hook),
};

inline constexpr MetricDecl kTaskStorageOwnMetrics[] = {
    {"created", "task storages", "none"},
    {"deleted", "task storages", "none"},
    {"failed", "task storages", "lower"},
};
inline constexpr auto kTaskStorageMetrics = with_probe_cost(kTaskStorageOwnMetrics);
inline constexpr std::string_view kTaskStorageIdentity[] = {"probe", "function"};
inline constexpr RecordType task_storage_record = probe_record("task_storage_churn",
    {.metrics = kTaskStorageMetrics, .identity = kTaskStorageIdentity});
inline constexpr ProbeDecl task_storage_declaration = {&task_storage_record, task_storage_keys};

std::unique_ptr<Probe> make_task_storage_churn(const std::string& on, const std::string& mode);

} // namespace initbench
#endif
