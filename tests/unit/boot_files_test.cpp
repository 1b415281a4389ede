// What a --kernel or --image file is, told from its first bytes before QEMU starts
// (host/boot/boot_files): a bzImage's setup header, an ELF for the right machine, an arm64
// Image; a newc cpio, plain or compressed. No QEMU.
#include "host/boot/boot_files.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <elf.h>
#include <string_view>
#include <vector>

namespace initbench {
namespace {

std::vector<std::uint8_t> head_with(std::size_t at, std::string_view bytes, std::size_t size = 4096) {
    std::vector<std::uint8_t> f(size, 0);
    std::memcpy(f.data() + at, bytes.data(), bytes.size());
    return f;
}

std::vector<std::uint8_t> elf_for(unsigned machine) {
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_machine = static_cast<Elf64_Half>(machine);
    return head_with(0, std::string_view(reinterpret_cast<const char*>(&eh), sizeof eh));
}

TEST(BootFiles, KernelsAreKnownByTheirHeaders) {
    using namespace std::literals;
    EXPECT_TRUE(check_kernel_bytes(head_with(0x202, "HdrS"), "x86_64").ok());
    EXPECT_TRUE(check_kernel_bytes(elf_for(EM_X86_64), "x86_64").ok());
    EXPECT_TRUE(check_kernel_bytes(head_with(0x38, "ARM\x64"), "aarch64").ok());
    EXPECT_TRUE(check_kernel_bytes(elf_for(EM_AARCH64), "aarch64").ok());
    EXPECT_TRUE(check_kernel_bytes(head_with(0, "\x1f\x8b"), "aarch64").ok()); // Debian's arm64 vmlinuz
    // Each architecture refuses the other's.
    EXPECT_FALSE(check_kernel_bytes(head_with(0x202, "HdrS"), "aarch64").ok());
    auto arm_elf = check_kernel_bytes(elf_for(EM_AARCH64), "x86_64");
    ASSERT_FALSE(arm_elf.ok());
    EXPECT_NE(arm_elf.error().message().find("machine 183, not x86_64"), std::string::npos);
    // The user's case: /etc/passwd, said as what it is.
    const std::string passwd = "root:x:0:0:root:/root:/bin/bash\n";
    auto text = check_kernel_bytes({reinterpret_cast<const std::uint8_t*>(passwd.data()), passwd.size()}, "x86_64");
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().message().find("no bzImage setup header"), std::string::npos) << text.error().message();
    EXPECT_NE(text.error().message().find("starts with 'root:x:0:0:r'"), std::string::npos) << text.error().message();
    EXPECT_FALSE(check_kernel_bytes({}, "x86_64").ok());
}

TEST(BootFiles, ImagesAreNewcCpioPlainOrCompressed) {
    using namespace std::literals;
    for (std::string_view magic : {"070701"sv, "070702"sv, "\x1f\x8b"sv, "BZh"sv, "\x5d\x00\x00"sv, "\xfd" "7zXZ"sv,
                                   "\x89LZO"sv, "\x02\x21\x4c\x18"sv, "\x28\xb5\x2f\xfd"sv})
        EXPECT_TRUE(check_image_bytes(head_with(0, magic)).ok()) << magic.size() << " bytes";
    // lzma's magic holds zero bytes: a file starting with 0x5d alone is not one.
    EXPECT_FALSE(check_image_bytes(head_with(0, "\x5d\x41\x41")).ok());
    auto passwd = check_image_bytes(head_with(0, "root:x:0:0:root"));
    ASSERT_FALSE(passwd.ok());
    EXPECT_NE(passwd.error().message().find("not an initramfs"), std::string::npos);
    // An old-style (binary) cpio is not newc: the kernel would not unpack it.
    EXPECT_FALSE(check_image_bytes(head_with(0, "\xc7\x71")).ok());
}

} // namespace
} // namespace initbench
