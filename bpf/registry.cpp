// The one list of probe kinds. A probe the kernel cannot support is still made: its record
// says why (Probe::supported, describe).
#include "bpf/probe.h"

namespace initbench {

extern const ProbeSpec funclat_probe;
extern const ProbeSpec span_probe;
extern const ProbeSpec kthread_probe;
extern const ProbeSpec wakeups_probe;
extern const ProbeSpec schedstat_probe;
extern const ProbeSpec task_storage_churn_probe;

const std::vector<const ProbeSpec*>& probe_registry() {
    static const std::vector<const ProbeSpec*> probes = {&funclat_probe, &span_probe,      &kthread_probe,
                                                         &wakeups_probe, &schedstat_probe, &task_storage_churn_probe};
    return probes;
}

} // namespace initbench
