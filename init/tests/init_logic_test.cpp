// Unit tests of the init's pure logic, compiled natively: the kernel build id from ELF
// notes, the run id, and which kernel messages are events. Nothing here acts as PID 1.
#include "init/identity.h"
#include "init/kmsg.h"
#include "init/phase_record.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace initbench {
namespace {

// ---- build_id_from_notes() ----------------------------------------------------------

// One ELF note as the kernel lays it out in /sys/kernel/notes (native byte order, name and
// descriptor each padded to 4 bytes). `namesz` counts the NUL.
std::string note(const std::string& name_with_nul, const std::string& desc, uint32_t type) {
    auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
    auto pad = [](std::string s) {
        s.resize((s.size() + 3) & ~size_t(3), '\0');
        return s;
    };
    return u32(static_cast<uint32_t>(name_with_nul.size())) + u32(static_cast<uint32_t>(desc.size())) +
           u32(type) + pad(name_with_nul) + pad(desc);
}

const std::string kGnu{"GNU\0", 4};
const std::string kBuildId{"\x01\x23\x45\x67\x89\xab\xcd\xef\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xfe\xff", 20};
const std::string kBuildIdHex = "0123456789abcdef00112233445566778899feff";
constexpr uint32_t kNtGnuBuildId = 3;

TEST(BuildIdFromNotes, GnuBuildIdNote) {
    ASSERT_EQ(kBuildId.size(), 20u);
    EXPECT_EQ(build_id_from_notes(note(kGnu, kBuildId, kNtGnuBuildId)), kBuildIdHex);
}

TEST(BuildIdFromNotes, SkipsOtherNotes) {
    const std::string xen = note(std::string("Xen\0", 4), std::string("\x00\x10\x00\x00", 4), 1);
    const std::string linux_note = note(std::string("Linux\0", 6), "abc", 0x100); // 6 → 8, 3 → 4
    const std::string gnu_other_type = note(kGnu, std::string("\x04\x00\x00\x00", 4), 1);         // NT_GNU_ABI_TAG
    const std::string not_gnu_type3 = note(std::string("GNX\0", 4), std::string(20, 'x'), kNtGnuBuildId);
    EXPECT_EQ(build_id_from_notes(xen + note(kGnu, kBuildId, kNtGnuBuildId)), kBuildIdHex);
    EXPECT_EQ(build_id_from_notes(xen + linux_note + gnu_other_type + not_gnu_type3 +
                                  note(kGnu, kBuildId, kNtGnuBuildId) + xen),
              kBuildIdHex);
    EXPECT_EQ(build_id_from_notes(xen + linux_note + gnu_other_type + not_gnu_type3), "");
    // A 8-byte (xxhash-style) build id is reported as it is.
    EXPECT_EQ(build_id_from_notes(note(kGnu, std::string("\xde\xad\xbe\xef\x00\x01\x02\x03", 8), kNtGnuBuildId)),
              "deadbeef00010203");
}

TEST(BuildIdFromNotes, TruncatedBlobsGiveEmpty) {
    const std::string full = note(std::string("Xen\0", 4), "abcd", 1) + note(kGnu, kBuildId, kNtGnuBuildId);
    ASSERT_EQ(build_id_from_notes(full), kBuildIdHex);
    for (size_t n = 0; n < full.size(); n++) {
        // An exact-size heap copy, so that a read past the end is a read past the allocation.
        std::vector<char> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(build_id_from_notes(std::string_view(cut.data(), cut.size())), "") << "cut at " << n;
    }
}

TEST(BuildIdFromNotes, HugeSizesGiveEmpty) {
    auto header = [](uint32_t namesz, uint32_t descsz) {
        std::string s(12, '\0');
        std::memcpy(s.data(), &namesz, 4);
        std::memcpy(s.data() + 4, &descsz, 4);
        uint32_t type = kNtGnuBuildId;
        std::memcpy(s.data() + 8, &type, 4);
        return s + kGnu + std::string(20, 'z');
    };
    for (auto [namesz, descsz] : std::vector<std::pair<uint32_t, uint32_t>>{
             {4, 0xffffffffu}, {0xffffffffu, 20}, {0xfffffffdu, 0xfffffffdu}, {4, 21}, {4, 0x7ffffffc}})
        EXPECT_EQ(build_id_from_notes(header(namesz, descsz)), "") << namesz << " " << descsz;
}

TEST(BuildIdFromNotes, RandomBytesDoNotCrash) {
    std::mt19937 rng(12345);
    for (size_t size : {0u, 1u, 3u, 4u, 11u, 12u, 13u, 16u, 31u, 32u, 36u, 64u, 100u, 257u, 4096u}) {
        for (int round = 0; round < 200; round++) {
            std::vector<char> blob(size);
            for (auto& c : blob) // small values too, so that sizes and type 3 occur
                c = static_cast<char>(rng() % 3 == 0 ? rng() % 24 : rng());
            const std::string id = build_id_from_notes(std::string_view(blob.data(), blob.size()));
            EXPECT_EQ(id.size() % 2, 0u);
            EXPECT_LE(id.size(), 2 * size);
            EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
        }
    }
}

// ---- random_run_id() ----------------------------------------------------------------

TEST(RandomRunId, Is128BitsOfLowercaseHex) {
    const std::string id = random_run_id();
    EXPECT_EQ(id.size(), 32u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    EXPECT_NE(id, std::string(32, '0'));
}

#if defined(__x86_64__) && defined(__GLIBC__)
// The stack protector's canary is taken from the same AT_RANDOM bytes (glibc and musl both
// copy the first 8 of them), so printing them as the run id puts the canary on the console.
TEST(RandomRunId, DoesNotRevealTheStackCanary) {
    // Regression (was a bug): init/identity.cpp random_run_id(): hex(getauxval(AT_RANDOM), 16) reveals the
    // stack-protector canary (bytes 0..7, musl and glibc) and glibc's pointer guard
    // (bytes 8..15). Hash them (or take getrandom(GRND_NONBLOCK) and fall back) instead.
    uint64_t canary;
    asm("movq %%fs:0x28, %0" : "=r"(canary));
    const std::string id = random_run_id();
    std::string canary_hex;
    for (int i = 1; i < 8; i++) { // glibc zeroes byte 0 of the canary, musl byte 1
        char b[3];
        std::snprintf(b, sizeof b, "%02x", unsigned((canary >> (8 * i)) & 0xff));
        canary_hex += b;
    }
    EXPECT_NE(id.substr(2, 14), canary_hex);
}
#endif

// ---- classify_kernel_message() and KmsgEvent ----------------------------------------

TEST(ClassifyKernelMessage, Table) {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 bar+0x1/0x2", "warning"},
        {"WARNING: possible circular locking dependency detected", "warning"},
        {"BUG: kernel NULL pointer dereference, address: 0000000000000000", "bug"},
        {"BUG: scheduling while atomic: swapper/0/0/0x00000002", "bug"},
        {"BUG: KASAN: slab-out-of-bounds in foo+0x12/0x40", "bug"},
        {"BUG: soft lockup - CPU#0 stuck for 22s!", "lockup"},
        {"BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!", "lockup"},
        {"Oops: 0000 [#1] PREEMPT SMP", "oops"},
        {"general protection fault, probably for non-canonical address 0xdead: 0000 [#1] SMP", "oops"},
        {"Kernel panic - not syncing: foo", "panic"},
        {"Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009", "kill_init"},
        {"Oopsie is not an oops", ""},
        {"rcu: INFO: rcu_tasks detected stalls on tasks:", "stall"},
        {"NMI watchdog: Watchdog detected hard LOCKUP on cpu 1", "lockup"},
        {"Out of memory: Killed process 123 (x) total-vm:1kB", "oom"},
        {"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=x,pid=123,uid=0", "oom"},
        {"rcu: INFO: rcu_sched self-detected stall on CPU", "stall"},
        {"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", "stall"},
        {"INFO: task foo:12 blocked for more than 120 seconds.", "hung_task"},
        {"Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)", ""},
        {"------------[ cut here ]------------", ""},
        {"Freeing unused kernel image (initmem) memory: 2740K", ""},
        {"Run /init as init process", ""},
        {"", ""},
    };
    for (const auto& [msg, kind] : cases)
        EXPECT_EQ(classify_kernel_message(msg), std::string_view(kind)) << msg;
}

// /dev/kmsg carries the message with its pr_fmt prefix, and the watchdog's is "watchdog: ".
TEST(ClassifyKernelMessage, LockupsAsTheKernelPrintsThem) {
    // Regression (was a bug): init/kmsg.cpp classify_kernel_message(): "BUG:" is matched only at the start of the
    // message, but kernel/watchdog.c defines pr_fmt "watchdog: ", so a real soft lockup reads
    // "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [x:1]" and is classified "" (the host
    // parser, host/results/logparse.cpp, looks for exactly "watchdog: BUG: soft lockup"). Hard
    // lockups ("NMI watchdog: Watchdog detected hard LOCKUP on cpu 1") are not matched either.
    EXPECT_EQ(classify_kernel_message("watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:1]"),
              std::string_view("lockup"));
    EXPECT_EQ(classify_kernel_message("NMI watchdog: Watchdog detected hard LOCKUP on cpu 1"),
              std::string_view("lockup"));
}

TEST(KmsgEvent, ToJson) {
    KmsgEvent e{"oops", 12.5, "Oops: 0000 [#1] SMP", {"CPU: 0 PID: 1 Comm: init", "RIP: 0010:foo"}};
    const nlohmann::json j = e.to_json();
    EXPECT_EQ(j["kind"], "oops");
    EXPECT_DOUBLE_EQ(j["time_s"].get<double>(), 12.5);
    EXPECT_EQ(j["line"], "Oops: 0000 [#1] SMP");
    EXPECT_EQ(j["context"], nlohmann::json::array({"CPU: 0 PID: 1 Comm: init", "RIP: 0010:foo"}));
    EXPECT_EQ(KmsgEvent{}.to_json()["context"], nlohmann::json::array());
}

// A fork round of a wall-clock boot beside a test suite: ops 0, 0 s of CPU in its cgroup over
// 1.09 s. Its rate of 0 is not a figure; the warning says which kind of nothing it was.
TEST(IdleWindow, ARoundWithoutOperationsSaysWhetherItsTasksRan) {
    EXPECT_EQ(idle_window_warning(468, 0.96, 1.0, "fork+exit+wait"), "");
    const std::string held = idle_window_warning(0, 0.0, 1.0884, "fork+exit+wait");
    EXPECT_EQ(held.rfind("no fork+exit+wait in the 1.09 s window, so its rate is 0", 0), 0u)
        << held;
    EXPECT_NE(held.find("no CPU time in it, so they only waited or never ran"), std::string::npos)
        << held;
    const std::string busy = idle_window_warning(0, 0.98, 1.0, "fork+exit+wait");
    EXPECT_NE(busy.find("ran for 0.98 s of CPU and finished none"), std::string::npos) << busy;
    EXPECT_EQ(idle_window_warning(0, std::nullopt, 1.0, "wake-up"),
              "no wake-up in the 1 s window, so its rate is 0 and the rounds have no mean");
}

} // namespace
} // namespace initbench
