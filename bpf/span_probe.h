// span: the time from entering function FROM to entering function TO, one span each time
// TO follows FROM (initbench.span=FROM:TO).
#pragma once

#include "bpf/probe.h"

#include <string>

namespace initbench {

std::unique_ptr<Probe> make_span(const std::string& from, const std::string& to, const std::string& mode);

} // namespace initbench
