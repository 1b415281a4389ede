// The boot options that `run`, `bisect-step` and `ab` share, declared once for CLI11
// (host/engine/boot_plan.h makes them one boot's RunOptions).
#pragma once

#include "host/boot/boot_options.h"

#include <CLI/CLI.hpp>

namespace initbench {

// --image --arch --cpus --memory --accel --boot --clock --machine --timeout --kernel-config.
void add_boot_options(CLI::App& cmd, BootOptions& o);

} // namespace initbench
