// bisect-step's inputs: the limits written on its command line, the kernel parameters file,
// the baseline's results and the one metric a glob names in them.
#pragma once

#include "common/result.h"
#include "host/compare/compare.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace initbench {

// "-15%", "+10", "15%": the percentage and its sign (0 when none was written).
std::optional<std::pair<double, int>> signed_amount(const std::string& text, bool percent);

// Kernel parameters from a file: words separated by white space, '#' to the end of a line;
// or why the file cannot be read (its path and errno).
Result<std::vector<std::string>> read_params(const std::string& path);

Result<std::vector<RunFile>> load_baseline(const std::vector<std::string>& paths);

// The one metric the pattern names, or why not.
Result<Series> find_metric(const std::vector<RunFile>& runs, const std::string& pattern);

} // namespace initbench
