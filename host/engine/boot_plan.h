// One boot planned from the boot options `run`, `bisect-step` and `ab` share and an
// experiment's kernel parameters: the RunOptions every backend boots.
#pragma once

#include "common/result.h"
#include "host/boot/boot.h"
#include "host/boot/boot_options.h"

#include <string>
#include <vector>

namespace initbench {

// A boot as the options and the experiment's parameters describe it, checked before QEMU
// starts: the image (the built one by default), the guest's size (--cpus/--memory, else the
// experiment's machine.*, else 1 CPU and 1024 MiB; within QEMU's limit), and a clock and
// accelerator that fit it (icount: TCG and one CPU). Every refusal is the command line's.
// The kernel is the caller's to set and check (check_kernel_file, choose_kernel_boot).
Result<RunOptions> plan_boot(const BootOptions& o, const std::vector<std::string>& params, const char* argv0);

// --machine into boot (its arch and clock already set): microvm, with the TSC frequency its
// kernel is to be told, or why it cannot be booted here.
Status choose_machine_model(const BootOptions& o, BootSpec& boot);

} // namespace initbench
