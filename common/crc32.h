#pragma once
// CRC-32 as used by zlib, gzip and IEEE 802.3 (reflected polynomial 0xEDB88320).

#include <cstdint>
#include <string>
#include <string_view>

namespace initbench {

// Chains like zlib's crc32(): crc32(b, crc32(a)) == crc32(a + b); the seed of a new
// computation is 0.
uint32_t crc32(std::string_view data, uint32_t seed = 0);

// The seed that crc32(data, seed) turns into `crc`: the CRC run backwards over data (each
// step is invertible, since the table's top bytes are all different). For finding where a
// known suffix must begin.
uint32_t crc32_unwind(std::string_view data, uint32_t crc);

// 8 lowercase hex digits, as the record frame writes a CRC.
std::string crc32_hex(uint32_t crc);

} // namespace initbench
