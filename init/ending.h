// How PID 1 leaves: it never returns (that panics the kernel). It syncs and then powers
// off, reboots, halts or hands the console to a BusyBox shell, as configured.
#pragma once

#include <string_view>

namespace initbench {

enum class EndAction { poweroff, reboot, halt, shell };

EndAction end_action_from(std::string_view name); // unknown names → poweroff

[[noreturn]] void end_machine(EndAction action);

} // namespace initbench
