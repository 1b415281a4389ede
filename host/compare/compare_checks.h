// compare's checks of its sides: what refuses a comparison and what it warns about.
#pragma once

#include "host/compare/compare.h"

#include <vector>

namespace initbench {

// Refuses mixed clocks and (unless options.force) different experiments; adds the
// warnings (the same run twice, the same kernel on two sides, different QEMU or image
// builds ...) to report.warnings, and the environment's also to report.environment_warnings.
Status check_sides(const std::vector<Side>& sides, const CompareOptions& options, Report& report);

// A kernel command line without initbench's own parameters: what tells two kernels'
// command lines apart ("nokaslr console=ttyS0").
std::string kernel_params(const std::string& cmdline);

// Which runs of the sides shared the host with other work, 0.5 CPUs' worth or more
// (host.others_busy_cpus), on the wall clock, where it can slow a boot even from other CPUs:
// the warning compare gives and bisect-step says, or "" when none did.
std::string busy_host_warning(const std::vector<Side>& sides);

// The side as the report names it: label, files, kernel, QEMU and image.
SideInfo side_info(const Side& side);

} // namespace initbench
