// Bring-up of a bare initramfs: the filesystems, the console fds, limits and loopback that
// the experiment needs. Each step is named; essential ones abort the run, optional ones
// become warnings.
#pragma once

#include "sys/sys.h"

#include <string>
#include <vector>

namespace initbench {

struct StepOutcome {
    std::string step;
    bool essential = false;
    Error error; // what failed
};

struct BringupReport {
    std::vector<StepOutcome> failures; // failed steps, essential or not
    bool fatal() const;
};

BringupReport bring_up();

} // namespace initbench
