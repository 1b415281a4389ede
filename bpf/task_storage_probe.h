// task_storage_churn: creates and deletes BPF task-local storage on every wake-up of the
// sleep load's tasks (comm "ib-sleep…"), reproducing the RCU Tasks Trace benchmark's load; or,
// with `on` a kernel function, on the current task at each of its calls (the RCU seed's
// program on getpgid). mode: initbench.attach.
#pragma once

#include "bpf/probe.h"

#include <string>

namespace initbench {

std::unique_ptr<Probe> make_task_storage_churn(const std::string& on, const std::string& mode);

} // namespace initbench
