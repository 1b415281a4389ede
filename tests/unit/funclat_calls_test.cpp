// funclat's calls in flight (bpf/funclat/funclat_calls.bpf.h, plain C that the BPF programs
// inline), compiled for the host against an array and a clock of its own: whose call a slot
// holds, what a thread that shares the slot does to it, and the switched-out time.
#include "bpf/funclat/funclat_probe.h" // first: its C++ part's headers must not see the macros below

#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include <cstdint>

#include "tests/unit/bpf_host.h"

namespace {
uint64_t fake_now = 0;
void *bpf_map_lookup_elem(void *map, const void *key);
uint64_t bpf_ktime_get_ns() { return fake_now; }
} // namespace

#include "bpf/funclat/funclat_calls.bpf.h"

#undef SEC
#undef __uint
#undef __type

namespace {

static_assert((FUNCLAT_MAX_THREADS & (FUNCLAT_MAX_THREADS - 1)) == 0,
              "a slot is a thread id's low bits: FUNCLAT_MAX_THREADS must be a power of two");

call slots[FUNCLAT_MAX_THREADS];

void *bpf_map_lookup_elem(void *, const void *key) {
    const uint32_t index = *static_cast<const uint32_t *>(key);
    return index < FUNCLAT_MAX_THREADS ? &slots[index] : nullptr;
}

class FunclatCalls : public ::testing::Test {
protected:
    void SetUp() override {
        for (auto &s : slots)
            s = call{};
        fake_now = 1000;
    }
};

TEST_F(FunclatCalls, AThreadsCallIsTimedFromEntryToReturn) {
    EXPECT_EQ(call_enter(7), 0);
    fake_now += 250;
    call_end end{};
    ASSERT_TRUE(call_return(7, &end));
    EXPECT_EQ(end.duration, 250u);
    EXPECT_EQ(end.switched_out, 0u);
    EXPECT_FALSE(call_return(7, &end)) << "a call returns once";
    EXPECT_FALSE(call_return(8, &end)) << "a thread that never entered has no call";
}

TEST_F(FunclatCalls, AThreadSharingTheSlotTakesItAndTheFirstCallIsNotCounted) {
    const __u32 first = 5, second = 5 + FUNCLAT_MAX_THREADS;
    EXPECT_EQ(call_enter(first), 0);
    fake_now += 50;
    EXPECT_EQ(call_enter(second), 1) << "the first thread's call was in flight";
    fake_now += 100;
    call_end end{};
    EXPECT_FALSE(call_return(first, &end)) << "the first call's start is gone: not timed by another's";
    fake_now += 100;
    ASSERT_TRUE(call_return(second, &end)) << "the second call is untouched by the first's return";
    EXPECT_EQ(end.duration, 200u);
    // A slot whose call has returned is free: taking it displaces nothing.
    EXPECT_EQ(call_enter(first), 0);
}

TEST_F(FunclatCalls, SwitchedOutTimeIsTheThreadsOwn) {
    const __u32 a = 11, b = 12, sharer = 11 + FUNCLAT_MAX_THREADS;
    ASSERT_EQ(call_enter(a), 0);
    fake_now += 10;
    account_switch(a, b, true); // a preempted at +10
    fake_now += 30;
    account_switch(b, a, true); // a back at +40
    fake_now += 5;
    account_switch(sharer, b, true); // a thread that shares a's slot but has no call
    fake_now += 20;
    account_switch(b, sharer, true);
    fake_now += 60;
    call_end end{};
    ASSERT_TRUE(call_return(a, &end));
    EXPECT_EQ(end.duration, 125u);
    EXPECT_EQ(end.switched_out, 30u);
    EXPECT_EQ(end.switches, 1u);
}

TEST_F(FunclatCalls, AVoluntarySwitchCountsOnlyWhenEveryOffCpuTimeIsSubtracted) {
    ASSERT_EQ(call_enter(3), 0);
    account_switch(3, 4, false); // subtract is "none" in this build: a sleep is part of the call
    fake_now += 40;
    account_switch(4, 3, false);
    call_end end{};
    ASSERT_TRUE(call_return(3, &end));
    EXPECT_EQ(end.duration, 40u);
    EXPECT_EQ(end.switched_out, 0u);
}

} // namespace
