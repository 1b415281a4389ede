// A kernel's .config as option -> value, for whoever needs one: the boot (CONFIG_HZ for TCG's
// lpj=) and the lab's feature check.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace initbench {

// CONFIG_X=value lines, keyed by X; "# CONFIG_X is not set" and absent options are off.
std::map<std::string, std::string> parse_kernel_config(std::string_view text);

} // namespace initbench
