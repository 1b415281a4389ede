// The probes' log2 histogram slot (bpf/core/log2_slot.bpf.h, plain C that the BPF programs
// inline), compiled for the host and checked against counting the bits one by one.
#define __always_inline inline
#include "bpf/core/log2_slot.bpf.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

unsigned int bit_by_bit(uint64_t v, unsigned int slots) {
    unsigned int slot = 0;
    while (v > 1 && slot + 1 < slots)
        v >>= 1, slot++;
    return slot;
}

TEST(Log2Slot, EveryPowerOfTwoAndItsNeighbours) {
    std::vector<uint64_t> values = {0, 1, 2, 3, UINT64_MAX};
    for (unsigned int k = 1; k < 64; k++)
        for (uint64_t v : {(uint64_t{1} << k) - 1, uint64_t{1} << k, (uint64_t{1} << k) + 1})
            values.push_back(v);
    for (unsigned int slots : {40u, 48u, 64u})
        for (uint64_t v : values)
            EXPECT_EQ(log2_slot(v, slots), bit_by_bit(v, slots)) << v << " in " << slots << " slots";
    EXPECT_EQ(log2_slot(20'000'000, 48), 24u); // a 20 ms call: [2^24, 2^25) ns
    EXPECT_EQ(log2_slot(UINT64_MAX, 48), 47u); // the last slot takes everything above
}

} // namespace
