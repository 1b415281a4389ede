// Reading a probe's map while the kernel counts into it can catch an update half done: a call
// counted but not yet in its histogram bucket, on another CPU or in an interrupt that ran
// softirqs in the middle of the copy. Each value (one per CPU, or the one of a shared map) is
// taken once two reads in a row agree on it; one still changing after the last read keeps
// that read.
#pragma once

#include "common/result.h"

#include <cstring>
#include <type_traits>
#include <vector>

namespace initbench {

inline constexpr int kSettleReads = 4;

// read() returns one T per CPU (the same number each time), or the error that stopped it.
template <typename T, typename Read>
Result<std::vector<T>> settled_read(Read read) {
    static_assert(std::is_trivially_copyable_v<T>, "compared byte for byte, as the kernel copies it");
    Result<std::vector<T>> first = read();
    if (!first)
        return first;
    std::vector<T> values = std::move(first.value());
    std::vector<bool> settled(values.size(), false);
    size_t left = values.size();
    for (int i = 1; i < kSettleReads && left > 0; i++) {
        Result<std::vector<T>> next = read();
        if (!next)
            return next;
        for (size_t cpu = 0; cpu < values.size() && cpu < next.value().size(); cpu++) {
            if (settled[cpu])
                continue;
            if (std::memcmp(&values[cpu], &next.value()[cpu], sizeof(T)) == 0) {
                settled[cpu] = true;
                left--;
            } else {
                values[cpu] = next.value()[cpu];
            }
        }
    }
    return values;
}

} // namespace initbench
