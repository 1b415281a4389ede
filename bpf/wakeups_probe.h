// wakeups: how many wake-ups, and how many distinct threads, processes and mms were woken
// per phase (the mm_cid thread's @threads/@processes).
#pragma once

#include "bpf/probe.h"

namespace initbench {

std::unique_ptr<Probe> make_wakeups();

} // namespace initbench
