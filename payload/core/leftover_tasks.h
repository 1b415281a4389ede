// What a phase left behind once its loads were stopped: the user tasks still there, their
// states and where they wait, settled while PID 1 reaps the orphans.
#pragma once

#include <map>
#include <string>
#include <sys/types.h>

namespace initbench {

// Tasks other than PID 1 and kernel threads, zombies included: what a phase left behind.
// Those of process group `except_group` (a background payload's), when not 0, are not counted.
unsigned count_user_tasks(pid_t except_group = 0);

// What a phase left behind: how many, in which states (/proc's letters), and where one task
// of each state waits in the kernel (its wchan), so that a warning can say why they stay.
struct LeftoverTasks {
    unsigned count = 0;
    std::map<char, unsigned> states;
    std::map<char, std::string> waits_in; // a state's first task's wchan, where it has one
};
// "14990 sleeping (S) in do_wait, 13 zombies (Z)": for a warning (pure, for the unit tests).
std::string describe_leftovers(const LeftoverTasks& left);

// The same once the phase's killed tasks have had until `deadline` to end: meanwhile PID 1
// reaps the zombies orphaned to it (a killed server's children, in a process group of their
// own, that no load group waits for). Returns at once when nothing is left.
LeftoverTasks settle_user_tasks(pid_t except_group, double deadline);

} // namespace initbench
