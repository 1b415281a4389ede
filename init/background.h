// A payload command that runs alongside the experiment (initbench.background): whatever
// should happen while the measurements run — a module loaded in the middle of a phase, a
// console flooded with kernel messages, a crash. It starts after the phases are planned,
// before the first phase (or command run), and is killed with its whole process group when
// they are done, before the end record. Its output goes to a file, never to the console.
#pragma once

#include "init/console.h"

#include <string>
#include <sys/types.h>

namespace initbench {

class Background {
public:
    Background() = default;
    ~Background(); // kills and reaps what still runs
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

    // Starts COMMAND, split and looked up like initbench.cmd; false, with an error record,
    // when it cannot be started.
    bool start(const std::string& command, Console& console);
    // Its process group (the tasks that are not a phase's), 0 when nothing runs.
    pid_t group() const { return pid_; }
    // Kills its process group and reaps it; a warning record when it had failed on its own.
    void stop(Console& console);

private:
    void kill_and_reap(int* status, bool* exited_before);

    pid_t pid_ = 0;
    std::string command_;
};

} // namespace initbench
