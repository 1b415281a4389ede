#include "common/crc32.h"

#include "common/text.h"

#include <array>

namespace initbench {
namespace {

constexpr std::array<uint32_t, 256> make_table() {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    return table;
}

constexpr auto kTable = make_table();

// Which table entry has a given top byte (each has a different one).
constexpr std::array<uint8_t, 256> make_top_byte_index() {
    std::array<uint8_t, 256> index{};
    for (uint32_t i = 0; i < 256; ++i)
        index[kTable[i] >> 24] = static_cast<uint8_t>(i);
    return index;
}

constexpr auto kTopByteIndex = make_top_byte_index();

} // namespace

uint32_t crc32(std::string_view data, uint32_t seed) {
    // zlib keeps the register inverted between calls, which is what makes chaining work.
    uint32_t c = ~seed;
    for (unsigned char byte : data)
        c = kTable[(c ^ byte) & 0xFF] ^ (c >> 8);
    return ~c;
}

uint32_t crc32_unwind(std::string_view data, uint32_t crc) {
    uint32_t c = ~crc;
    for (size_t i = data.size(); i-- > 0;) {
        const uint32_t index = kTopByteIndex[c >> 24];
        c = ((c ^ kTable[index]) << 8) | ((index ^ static_cast<unsigned char>(data[i])) & 0xFF);
    }
    return ~c;
}

std::string crc32_hex(uint32_t crc) {
    const unsigned char big_endian[] = {static_cast<unsigned char>(crc >> 24), static_cast<unsigned char>(crc >> 16),
                                        static_cast<unsigned char>(crc >> 8), static_cast<unsigned char>(crc)};
    return to_hex(big_endian);
}

} // namespace initbench
