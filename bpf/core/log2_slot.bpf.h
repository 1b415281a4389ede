/* SPDX-License-Identifier: GPL-2.0 */
/* The log2 histogram slot of a value, shared by the probes that keep one: slot s holds
 * [2^s, 2^(s+1)), slot 0 also holds 0, and the last slot takes everything above it. The
 * highest set bit is found in six halving steps without branches: a loop shifting one bit
 * at a time ran a step per bit, 24 of them for a 20 ms call, on every event.
 * tests/unit/log2_slot_test.cpp checks it against a bit-by-bit count. */
#pragma once

static __always_inline unsigned int log2_slot(unsigned long long v, unsigned int slots) {
    /* 64-bit throughout: a 32-bit slot made clang bound a zero-extended copy of it, and the
     * verifier, which does not carry that bound back, refused the histogram's index. */
    unsigned long long slot = 0, s;
    s = (v > 0xffffffffULL) << 5, v >>= s, slot |= s;
    s = (v > 0xffff) << 4, v >>= s, slot |= s;
    s = (v > 0xff) << 3, v >>= s, slot |= s;
    s = (v > 0xf) << 2, v >>= s, slot |= s;
    s = (v > 0x3) << 1, v >>= s, slot |= s;
    slot |= v >> 1;
    if (slot >= slots)
        slot = slots - 1;
    return slot;
}
