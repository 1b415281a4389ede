// The check that run, bisect-step, ab and lava-job make before they boot or write a job:
// everything the init would refuse as an error record (a misspelled key, a bad value, an
// unknown profile or load) is refused on the host, naming its key, so that no boot is spent
// on it. The guest keeps its own check for a job written by hand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace initbench {

// Prints each problem as "initbench WHO: SOURCE: KEY=VALUE: REASON" and a last line on how to
// boot anyway (`bypass`, when the command has a flag for it); true when there is none.
bool settings_accepted(std::string_view who, const std::string& image, const std::vector<std::string>& params,
                       std::string_view bypass = "");

} // namespace initbench
