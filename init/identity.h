// Which kernel produced these numbers: read once at start and carried by the header record,
// so that reused "after" numbers cannot pass for a new kernel's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace initbench {

nlohmann::json kernel_identity(double init_start_uptime);

// The GNU build id from the ELF notes in /sys/kernel/notes, as hex; "" if absent.
std::string build_id_from_notes(std::string_view notes);

// 128 random bits as hex, from the kernel's AT_RANDOM (never blocks, even before the
// entropy pool is ready).
std::string random_run_id();

} // namespace initbench
