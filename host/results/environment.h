// The results document's environment fingerprint ("environment"): what besides the kernel
// can move the numbers. QEMU's version, the host's CPU and kernel, the CLI's and the image's
// version and commit, and the kernel's .config when one is given.
#pragma once

#include "host/results/logparse.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace initbench {

// {"path", "sha256", "bytes"}, or {"path", "error"} when the file cannot be read.
nlohmann::json file_facts(const std::string& path);

// From `qemu-system-* --version`'s output: {"version": "7.2.17", "banner": its first line}.
nlohmann::json qemu_version_facts(std::string_view version_output);

// The CPU's model as /proc/cpuinfo names it: x86's "model name", else arm64's implementer
// and part; "" when it says neither.
std::string cpu_model(std::string_view cpuinfo);

// This CLI's build: {"version", "commit"}.
nlohmann::json cli_build_facts();

// The image's build, as its header record says it: {"version", "commit"}; commit absent
// from images that do not record it, null without a header.
nlohmann::json image_build_facts(const ParsedLog& log);

// What `run` and bisect-step know: the CLI, QEMU (`BINARY --version`, run once per binary
// per process), the host's CPU and kernel, and the .config's hash when kernel_config is set.
nlohmann::json run_environment(const std::string& qemu_binary, const std::string& kernel_config);

// What `parse` knows of a log captured elsewhere: the CLI only.
nlohmann::json parse_environment();

} // namespace initbench
