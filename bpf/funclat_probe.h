// funclat: the latency of one kernel function per call (fentry/fexit, or kprobes where the
// kernel cannot do fentry).
#pragma once

#include "bpf/probe.h"
#include "common/linear_hist.h"

#include <string>

namespace initbench {

std::unique_ptr<Probe> make_funclat(const std::string& function, const LinearHistogramSpec& lin);

} // namespace initbench
