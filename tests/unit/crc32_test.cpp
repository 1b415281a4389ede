#include "common/crc32.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

TEST(Crc32, KnownVectors) {
    EXPECT_EQ(crc32(""), 0u);
    EXPECT_EQ(crc32("123456789"), 0xCBF43926u);
    EXPECT_EQ(crc32("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
    EXPECT_EQ(crc32(std::string_view("\0", 1)), 0xD202EF8Du);
}

TEST(Crc32, ChainsLikeZlib) {
    const std::string a = "IB1 framing ", b = "chained in two calls";
    EXPECT_EQ(crc32(b, crc32(a)), crc32(a + b));
    EXPECT_EQ(crc32("", crc32(a)), crc32(a));
}

TEST(Crc32, AllByteValues) {
    std::string bytes;
    for (int i = 0; i < 256; ++i)
        bytes += char(i);
    EXPECT_EQ(crc32(bytes), 0x29058C73u);
}

TEST(Crc32, Hex) {
    EXPECT_EQ(crc32_hex(0xCBF43926u), "cbf43926");
    EXPECT_EQ(crc32_hex(1), "00000001");
    EXPECT_EQ(crc32_hex(0), "00000000");
}

TEST(Crc32, UnwindFindsTheSeed) {
    const std::string prefix = "IB1 {\"v\":1,", suffix = "\"rest\":[1,2]}";
    const uint32_t whole = crc32(prefix + suffix);
    EXPECT_EQ(crc32_unwind(suffix, whole), crc32(prefix));
    EXPECT_EQ(crc32_unwind("", whole), whole);
    for (uint32_t seed : {0u, 1u, 0xFFFFFFFFu, 0xCBF43926u})
        EXPECT_EQ(crc32_unwind(suffix, crc32(suffix, seed)), seed) << seed;
}

} // namespace
} // namespace initbench
