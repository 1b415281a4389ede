// `initbench pack`: user files (modules, binaries, scripts) and an experiment file appended
// to a built image as a second gzip'd cpio. The kernel unpacks concatenated archives in
// order, so the base image is copied byte for byte and never rebuilt.
#pragma once

#include "host/image/cpio_archive.h"

#include <optional>
#include <string>
#include <vector>

namespace initbench {

inline constexpr const char* kPayloadDir = "/payload";
inline constexpr const char* kPayloadExperiment = "/payload/experiment.conf";

struct PayloadAdd {
    std::string local; // file or directory on the host
    std::string guest; // absolute, under /payload/
};

// "LOCAL:/payload/PATH". Returns why it is refused, or "" and sets `out`.
std::string parse_payload_add(const std::string& text, PayloadAdd& out);

// The cpio entries for the additions (directories recursively, the parent directories
// of everything), the experiment file and `generated` files (packed programs). Throws
// std::runtime_error.
std::vector<CpioEntry> payload_entries(const std::vector<PayloadAdd>& adds,
                                       const std::optional<std::string>& experiment_path,
                                       const std::vector<CpioEntry>& generated = {});

// Checks an experiment file the way the init will read it, with the profiles of the base
// image. Returns one line per problem.
std::vector<std::string> check_experiment(const std::string& text, const std::string& base_image);

// Copies `base` to `out` and appends the payload. Throws std::runtime_error, and then
// leaves no file behind.
void pack_image(const std::string& base, const std::vector<PayloadAdd>& adds,
                const std::optional<std::string>& experiment_path, const std::string& out,
                const std::vector<CpioEntry>& generated = {});

// What `initbench pack` was asked for, as its command line gives it.
struct PackOptions {
    std::string image, out, config, arch, sysroot;
    std::vector<std::string> adds, data, programs;
};

// Packs as asked, saying what it did or why not: 0, 1 (failed) or 2 (a bad request).
int run_pack(const PackOptions& o);

} // namespace initbench
