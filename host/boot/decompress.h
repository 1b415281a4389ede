// The compressions a Linux kernel build can give its payload (bzImage's piggy), decoded with
// Debian's libraries. Each decoder stops at the end of the first stream: the kernel build
// appends a 4-byte size after it.
#pragma once

#include "common/result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace initbench {

using Bytes = std::vector<std::uint8_t>;

enum class Compression { gzip, bzip2, lzma, xz, lzo, lz4, zstd };

const char* compression_name(Compression c);

// By the data's leading magic; nullopt when it is none of the kernel's compressions.
std::optional<Compression> identify_compression(std::span<const std::uint8_t> data);

// Decodes the first stream of `in`. An error when it is damaged or cut short, or when the
// output would exceed `limit` bytes (a hostile image must not exhaust memory).
Result<Bytes> decompress(Compression c, std::span<const std::uint8_t> in, std::size_t limit);

} // namespace initbench
