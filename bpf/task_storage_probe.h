// task_storage_churn: creates and deletes BPF task-local storage on every wake-up of the
// sleep load's tasks (comm "ib-sleep…"), reproducing the RCU Tasks Trace benchmark's load.
#pragma once

#include "bpf/probe.h"

namespace initbench {

std::unique_ptr<Probe> make_task_storage_churn();

} // namespace initbench
