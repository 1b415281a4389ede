// wakeups: how many wake-ups, and how many distinct threads, processes and mms were woken
// per phase (the mm_cid thread's @threads/@processes). tasks "user": only tasks with an mm,
// from fentry/try_to_wake_up as the mm_cid seed counted them; "all": every sched_wakeup.
#pragma once

#include "bpf/probe.h"

#include <string>

namespace initbench {

std::unique_ptr<Probe> make_wakeups(const std::string& tasks);

} // namespace initbench
