// funclat: the latency of one kernel function per call (fentry/fexit, or kprobes where the
// kernel cannot do fentry), optionally without the time the thread was switched out.
#pragma once

#include "bpf/probe.h"
#include "common/linear_hist.h"

#include <string>

namespace initbench {

struct FunclatOptions {
    LinearHistogramSpec lin;
    std::string mode = "auto";     // auto (fentry, else kprobe) | fentry | kprobe
    std::string subtract = "none"; // none | preempt | offcpu
};

std::unique_ptr<Probe> make_funclat(const std::string& function, const FunclatOptions& options);

} // namespace initbench
