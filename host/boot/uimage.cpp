#include "host/boot/uimage.h"

#include "common/crc32.h"

#include <algorithm>
#include <cstdint>

namespace initbench {
namespace {

// include/image.h of U-Boot: the values `source` and `mkimage -l` check.
constexpr std::uint32_t kMagic = 0x27051956;
constexpr std::uint8_t kOsLinux = 5, kArchArm64 = 22, kTypeScript = 6, kCompNone = 0;
constexpr std::size_t kHeaderBytes = 64, kNameBytes = 32, kCrcAt = 4, kDataCrcAt = 24;

void put_be32(std::string& out, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; i++)
        out[at + i] = static_cast<char>(v >> (24 - 8 * i));
}

} // namespace

std::string uboot_script_image(std::string_view script, std::string_view name) {
    // A script image's data is a table of part lengths ending in 0, then the parts.
    std::string data(8, '\0');
    put_be32(data, 0, static_cast<std::uint32_t>(script.size()));
    data += script;
    std::string header(kHeaderBytes, '\0');
    put_be32(header, 0, kMagic);
    put_be32(header, 12, static_cast<std::uint32_t>(data.size())); // after the time (8) and before load, entry
    put_be32(header, kDataCrcAt, crc32(data));
    header[28] = static_cast<char>(kOsLinux);
    header[29] = static_cast<char>(kArchArm64);
    header[30] = static_cast<char>(kTypeScript);
    header[31] = static_cast<char>(kCompNone);
    std::copy_n(name.begin(), std::min(name.size(), kNameBytes - 1), header.begin() + 32);
    put_be32(header, kCrcAt, crc32(header)); // computed with its own field still 0
    return header + data;
}

} // namespace initbench
