// The percentiles the probes report of their log2 histograms (bpf/core/log2.h), against
// values worked out here from the slot counts alone: slot s holds [2^s, 2^(s+1)) and slot 0
// [0, 2) (bpf/core/log2_slot.bpf.h), and the value of rank p% of the counts lies in its slot
// as far as the counts before it leave, the slot's values taken as evenly spread
// (common/histogram.h), never above the largest value seen.
#include "bpf/core/log2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace initbench {
namespace {

constexpr size_t kSlots = 48; // funclat's and span's
constexpr uint64_t kNoMax = UINT64_MAX;

using Slots = std::vector<unsigned long long>;

Slots slots_with(std::initializer_list<std::pair<size_t, unsigned long long>> counts,
                 size_t n = kSlots) {
    Slots s(n, 0);
    for (auto [slot, count] : counts)
        s.at(slot) = count;
    return s;
}

double slot_low(size_t s) { return s == 0 ? 0.0 : std::ldexp(1.0, int(s)); }
double slot_high(size_t s) { return std::ldexp(1.0, int(s) + 1); }

// The p-th percentile worked out from the counts, slot by slot.
double expected(const Slots& slots, double p, uint64_t max) {
    double total = 0;
    for (unsigned long long c : slots)
        total += double(c);
    const double rank = p / 100.0 * total;
    double before = 0;
    for (size_t s = 0; s < slots.size(); s++) {
        if (slots[s] == 0 || before + double(slots[s]) < rank) {
            before += double(slots[s]);
            continue;
        }
        const double v = slot_low(s) + (rank - before) / double(slots[s]) * (slot_high(s) - slot_low(s));
        return std::min(v, double(max));
    }
    ADD_FAILURE() << "rank " << rank << " beyond the counts";
    return 0;
}

void expect_percentiles(const Slots& slots, uint64_t max = kNoMax) {
    const nlohmann::json got = log2_percentiles(slots.data(), slots.size(), max);
    for (int p : {50, 90, 99}) {
        const std::string key = "p" + std::to_string(p);
        ASSERT_TRUE(got.contains(key)) << got.dump();
        EXPECT_DOUBLE_EQ(got[key].get<double>(), expected(slots, p, max)) << key << " of " << got.dump();
    }
}

// Everything in [1024, 2048): the percentiles are that far into it. Worked out by hand as
// well, so that the formula above is checked too.
TEST(Log2Percentiles, OneSlot) {
    const Slots s = slots_with({{10, 100}});
    const nlohmann::json got = log2_percentiles(s.data(), s.size(), kNoMax);
    EXPECT_DOUBLE_EQ(got["p50"].get<double>(), 1536.0);
    EXPECT_DOUBLE_EQ(got["p90"].get<double>(), 1024.0 + 0.9 * 1024.0);
    EXPECT_DOUBLE_EQ(got["p99"].get<double>(), 1024.0 + 0.99 * 1024.0);
    expect_percentiles(s);
    for (size_t slot : {1u, 2u, 17u, 30u})
        expect_percentiles(slots_with({{slot, 7}}));
}

// The first slot starts at 0, not at 1; the last starts at 2^47.
TEST(Log2Percentiles, TheEdgeSlots) {
    const Slots first = slots_with({{0, 10}});
    EXPECT_DOUBLE_EQ(log2_percentiles(first.data(), first.size(), kNoMax)["p50"].get<double>(), 1.0);
    expect_percentiles(first);
    const Slots last = slots_with({{kSlots - 1, 10}});
    EXPECT_DOUBLE_EQ(log2_percentiles(last.data(), last.size(), kNoMax)["p50"].get<double>(),
                     1.5 * std::ldexp(1.0, int(kSlots) - 1));
    expect_percentiles(last);
    expect_percentiles(slots_with({{0, 5}, {kSlots - 1, 5}}));
    expect_percentiles(slots_with({{39, 3}}, 40)); // softirq's 40 slots
}

// Mass over several slots: a rank that ends a slot exactly is that slot's upper bound (50 of
// 100 in [8, 16): p50 is 16), one that falls inside a slot lies inside it.
TEST(Log2Percentiles, MassSpreadOverSlots) {
    const Slots s = slots_with({{3, 50}, {5, 40}, {20, 10}});
    const nlohmann::json got = log2_percentiles(s.data(), s.size(), kNoMax);
    EXPECT_DOUBLE_EQ(got["p50"].get<double>(), 16.0);
    EXPECT_DOUBLE_EQ(got["p90"].get<double>(), 64.0);
    EXPECT_DOUBLE_EQ(got["p99"].get<double>(), std::ldexp(1.0, 20) * 1.9);
    expect_percentiles(s);
    expect_percentiles(slots_with({{4, 1}, {9, 1000}, {12, 30}, {13, 1}}));
    Slots every(kSlots, 1);
    expect_percentiles(every);
    Slots rising(kSlots);
    for (size_t i = 0; i < kSlots; i++)
        rising[i] = i * i;
    expect_percentiles(rising);
}

// No percentile above the largest value seen: the slot's even spread is a guess there.
TEST(Log2Percentiles, CappedAtTheLargestValue) {
    const Slots s = slots_with({{10, 100}});
    const nlohmann::json got = log2_percentiles(s.data(), s.size(), 1100);
    EXPECT_DOUBLE_EQ(got["p50"].get<double>(), 1100.0);
    EXPECT_DOUBLE_EQ(got["p99"].get<double>(), 1100.0);
    expect_percentiles(slots_with({{3, 50}, {5, 40}, {20, 10}}), 40);
}

TEST(Log2Percentiles, NoneOfAnEmptyHistogram) {
    const Slots s(kSlots, 0);
    EXPECT_TRUE(log2_percentiles(s.data(), s.size(), kNoMax).empty());
}

} // namespace
} // namespace initbench
