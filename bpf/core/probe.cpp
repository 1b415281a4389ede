// The runner's one way to make a kind's probes, whichever way the kind declares it.
#include "bpf/core/probe.h"

#include "bpf/core/setup_times.h"
#include "common/config.h"

namespace initbench {

void make_probes_of(const ProbeSpec& spec, const Config& config,
                    std::vector<std::unique_ptr<Probe>>& out) {
    if (spec.make) {
        spec.make(config, out);
    } else if (spec.make_on_flag && config.flag(spec.name)) {
        setup_begin(std::string(spec.name));
        out.push_back(spec.make_on_flag());
    }
}

} // namespace initbench
