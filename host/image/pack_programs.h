// `initbench pack --program PATH[:NAME]`: a dynamically linked program (a Debian one: glibc)
// packed with its shared libraries and its own loader, for the static musl-only image. In the
// guest it runs as /payload/bin/NAME, a wrapper that starts the packed loader on the program
// (/payload/libexec/NAME) with the packed libraries (/payload/lib). A static program is
// /payload/bin/NAME itself.
#pragma once

#include "host/image/cpio_archive.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

inline constexpr const char* kPayloadBin = "/payload/bin";
inline constexpr const char* kPayloadLibexec = "/payload/libexec";
inline constexpr const char* kPayloadLib = "/payload/lib";

struct ProgramSpec {
    std::string local; // the program on the host
    std::string name;  // /payload/bin/NAME in the guest
};

// "PATH" or "PATH:NAME" (NAME: letters, digits, '.', '_', '+', '-'). Returns why it is
// refused, or "" and sets `out`.
std::string parse_program_spec(const std::string& text, ProgramSpec& out);

// The wrapper that runs /payload/libexec/NAME through the packed loader.
std::string program_wrapper(const std::string& name, const std::string& loader_name);

struct PackedProgramSize {
    std::string name;
    bool dynamic = false;
    uint64_t program_bytes = 0;
    uint64_t library_bytes = 0; // its libraries and loader, shared ones too
    size_t libraries = 0;       // their number, the loader included
};

struct ProgramPayload {
    std::vector<CpioEntry> files; // no directories: payload_entries adds the parents
    std::vector<PackedProgramSize> sizes;
    uint64_t total_bytes = 0; // every file once, uncompressed
};

// Resolves and lays out the programs; a library several need is packed once. Throws
// std::runtime_error (see resolve_program; also two programs of one name, or two different
// files under one library name).
ProgramPayload program_payload(const std::vector<ProgramSpec>& programs, const std::string& arch,
                               const std::string& sysroot = "");

// The architecture of an image ("x86_64", "aarch64"): its /init's ELF machine. None if the
// image cannot be read or has no ELF /init.
std::optional<std::string> image_arch(const std::string& image);

} // namespace initbench
