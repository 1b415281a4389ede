// The choice every function probe makes before load: fentry/fexit when the functions are
// in BTF and the kernel can attach there, kprobes otherwise (arm64 6.1 has no fentry), or
// "unsupported" with the reason from each attempt.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

enum class Mechanism { fentry, kprobe };

// try_load(m, why) loads and attaches the probe's programs with mechanism m; on failure it
// sets `why`. mode is "auto", "fentry" or "kprobe" (forced). Returns the mechanism used, or
// nothing with `reason` saying why neither worked; `reason` also explains a fallback.
std::optional<Mechanism> attach_functions(const std::vector<std::string>& functions, const std::string& mode,
                                          const std::function<bool(Mechanism, std::string&)>& try_load,
                                          std::string& reason);

const char* mechanism_name(Mechanism m); // "fentry/fexit" | "kprobe/kretprobe"

} // namespace initbench
