// What a file given as --kernel or --image is, from its first bytes: checked on the host, so
// that a wrong file is refused with its reason before QEMU starts, not a boot later.
#pragma once

#include "common/result.h"

#include <cstdint>
#include <span>
#include <string>

namespace initbench {

// A kernel QEMU can boot for `arch`: on x86_64 a bzImage (its setup header) or an x86_64 ELF
// vmlinux; on aarch64 an arm64 Image (its header's magic), an aarch64 ELF, or a gzip'd
// Image (Debian's vmlinuz). The error says what the file is not, and how it starts.
Status check_kernel_bytes(std::span<const std::uint8_t> head, const std::string& arch);
Status check_kernel_file(const std::string& path, const std::string& arch);

// An initramfs the kernel can unpack: a newc cpio, plain or compressed (gzip, bzip2, lzma,
// xz, lzo, lz4, zstd).
Status check_image_bytes(std::span<const std::uint8_t> head);
Status check_image_file(const std::string& path);

} // namespace initbench
