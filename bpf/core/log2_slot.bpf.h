/* SPDX-License-Identifier: GPL-2.0 */
/* The log2 histogram slot of a value, shared by the probes that keep one: slot s holds
 * [2^s, 2^(s+1)), slot 0 also holds 0, and the last slot takes everything above it.
 * `slots` is a constant at every call, so the loop has the fixed bound the verifier needs. */
#pragma once

static __always_inline unsigned int log2_slot(unsigned long long v, unsigned int slots) {
    unsigned int slot = 0;
    for (unsigned int i = 0; i + 1 < slots; i++) {
        if (v <= 1)
            break;
        v >>= 1;
        slot++;
    }
    return slot;
}
