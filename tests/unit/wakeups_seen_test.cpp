// wakeups' record of what a phase woke (bpf/wakeups/wakeups_seen.bpf.h, plain C that the BPF
// program inlines), compiled for the host against arrays and hash sets of its own: a thread
// woken again costs nothing new, its process and mm are recorded once, an exec's new mm is
// seen, and ids beyond the arrays go to the hash sets.
#include "bpf/wakeups/wakeups_probe.h" // first: its C++ part's headers must not see the macros below

#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "tests/unit/bpf_host.h"

namespace {
void *bpf_map_lookup_elem(void *map, const void *key);
long bpf_map_update_elem(void *map, const void *key, const void *value, uint64_t flags);
} // namespace

#include "bpf/wakeups/wakeups_seen.bpf.h"

#undef SEC
#undef __uint
#undef __type

namespace {

constexpr uint32_t kIds = 64; // the arrays' size here, as kernel.pid_max sizes them in the guest

std::vector<uint64_t> thread_words;
std::vector<uint64_t> process_words;
wakeup_counts this_cpu;
std::map<const void *, std::set<uint64_t>> hash_sets; // threads, processes, mms
size_t hash_capacity = WAKEUPS_MAX_KEYS;

uint64_t key_of(const void *map, const void *key) {
    if (map == &mms)
        return *static_cast<const uint64_t *>(key);
    return *static_cast<const uint32_t *>(key);
}

void *bpf_map_lookup_elem(void *map, const void *key) {
    const uint32_t index = *static_cast<const uint32_t *>(key);
    if (map == &thread_mm)
        return index < thread_words.size() ? &thread_words[index] : nullptr;
    if (map == &process_flags)
        return index < process_words.size() ? &process_words[index] : nullptr;
    if (map == &counts)
        return &this_cpu;
    static uint8_t present = 1;
    return hash_sets[map].count(key_of(map, key)) ? &present : nullptr;
}

long bpf_map_update_elem(void *map, const void *key, const void *, uint64_t flags) {
    EXPECT_EQ(flags, uint64_t{BPF_NOEXIST});
    auto &set = hash_sets[map];
    if (set.count(key_of(map, key)))
        return -EEXIST;
    if (set.size() >= hash_capacity)
        return -E2BIG;
    set.insert(key_of(map, key));
    return 0;
}

// What the loader counts at a window's end: the arrays' marks and the hash sets' keys.
uint64_t threads_woken() {
    uint64_t n = hash_sets[&threads].size();
    for (uint64_t w : thread_words)
        n += w != 0;
    return n;
}

uint64_t processes_woken() {
    uint64_t n = hash_sets[&processes].size();
    for (uint64_t w : process_words)
        for (int byte = 0; byte < 8; byte++)
            n += ((w >> (8 * byte)) & 0xff) != 0;
    return n;
}

class WakeupsSeen : public ::testing::Test {
protected:
    void SetUp() override {
        thread_words.assign(kIds, 0);
        process_words.assign(kIds / 8, 0);
        this_cpu = {};
        hash_sets.clear();
        hash_capacity = WAKEUPS_MAX_KEYS;
    }
};

TEST_F(WakeupsSeen, AThreadWokenAgainIsCountedOnce) {
    count_woken(7, 7, 0x1000);
    count_woken(8, 7, 0x1000);
    for (int i = 0; i < 3; i++)
        count_woken(7, 7, 0x1000);
    EXPECT_EQ(this_cpu.wakeups, 5u) << "every wake-up counts";
    EXPECT_EQ(threads_woken(), 2u);
    EXPECT_EQ(processes_woken(), 1u);
    EXPECT_EQ(hash_sets[&mms], (std::set<uint64_t>{0x1000}));
    EXPECT_TRUE(hash_sets[&threads].empty()) << "ids inside the arrays stay out of the hash sets";
    EXPECT_EQ(this_cpu.dropped, 0u);
}

TEST_F(WakeupsSeen, AKernelThreadHasNoMm) {
    count_woken(2, 2, 0);
    count_woken(2, 2, 0);
    EXPECT_EQ(threads_woken(), 1u);
    EXPECT_EQ(processes_woken(), 1u);
    EXPECT_TRUE(hash_sets[&mms].empty());
    EXPECT_EQ(thread_words[2], uint64_t{THREAD_WITHOUT_MM});
}

TEST_F(WakeupsSeen, AnExecsNewMmIsCounted) {
    count_woken(9, 9, 0x1000);
    count_woken(9, 9, 0x2000); // the same thread after execve: a new address space
    count_woken(9, 9, 0x2000);
    EXPECT_EQ(threads_woken(), 1u);
    EXPECT_EQ(processes_woken(), 1u);
    EXPECT_EQ(hash_sets[&mms], (std::set<uint64_t>{0x1000, 0x2000}));
}

TEST_F(WakeupsSeen, ProcessesThatShareAWordAreEachCounted) {
    for (uint32_t id = 8; id < 16; id++) // one word of process_flags
        count_woken(id, id, 0x1000 * id);
    count_woken(17, 9, 0x9000); // a second thread of process 9
    EXPECT_EQ(processes_woken(), 8u);
    EXPECT_EQ(threads_woken(), 9u);
    EXPECT_EQ(hash_sets[&mms].size(), 8u);
}

TEST_F(WakeupsSeen, IdsBeyondTheArraysGoToTheHashSets) {
    // kernel.pid_max raised after loading: ids the arrays have no slot for.
    count_woken(kIds + 5, kIds + 5, 0x1000);
    count_woken(kIds + 6, kIds + 5, 0x1000);
    count_woken(kIds + 5, kIds + 5, 0x1000);
    EXPECT_EQ(hash_sets[&threads], (std::set<uint64_t>{kIds + 5, kIds + 6}));
    EXPECT_EQ(hash_sets[&processes], (std::set<uint64_t>{kIds + 5}));
    EXPECT_EQ(threads_woken(), 2u);
    EXPECT_EQ(processes_woken(), 1u);
    EXPECT_EQ(this_cpu.dropped, 0u);
}

TEST_F(WakeupsSeen, AFullHashSetCountsWhatItDropped) {
    hash_capacity = 2;
    for (uint64_t mm = 1; mm <= 4; mm++)
        count_woken(static_cast<uint32_t>(mm + 20), static_cast<uint32_t>(mm + 20), mm << 12);
    EXPECT_EQ(hash_sets[&mms].size(), 2u);
    EXPECT_EQ(this_cpu.dropped, 2u);
    EXPECT_EQ(threads_woken(), 4u) << "the arrays never fill";
}

} // namespace
