#include "host/boot/boot_files.h"

#include "host/boot/kernel_image.h"
#include "sys/sys.h"

#include <cstring>
#include <elf.h>

namespace initbench {
namespace {

constexpr std::size_t kHead = 4096; // enough for every header looked at here

bool starts_with(std::span<const std::uint8_t> f, std::string_view magic, std::size_t at = 0) {
    return f.size() >= at + magic.size() && std::memcmp(f.data() + at, magic.data(), magic.size()) == 0;
}

// "starts with 'root:x:0:0:roo'" or "starts with bytes 7f 45 4c 46 ...": what the file is.
std::string how_it_starts(std::span<const std::uint8_t> f) {
    if (f.empty())
        return "it is empty";
    const std::size_t n = std::min<std::size_t>(f.size(), 12);
    bool text = true;
    for (std::size_t i = 0; i < n; i++)
        text = text && f[i] >= 0x20 && f[i] < 0x7f;
    std::string out = text ? "it starts with '" : "it starts with bytes";
    for (std::size_t i = 0; i < n; i++) {
        if (text) {
            out += char(f[i]);
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, " %02x", f[i]);
            out += hex;
        }
    }
    return out + (text ? "'" : "");
}

// The ELF machine of an ELF64 little-endian file; 0 when it is not one.
unsigned elf64_machine(std::span<const std::uint8_t> f) {
    Elf64_Ehdr eh;
    if (!is_elf(f) || f.size() < sizeof eh)
        return 0;
    std::memcpy(&eh, f.data(), sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return 0;
    return eh.e_machine;
}

constexpr std::string_view kGzip = "\x1f\x8b";

Result<std::string> read_head(const std::string& path) {
    auto bytes = read_file(path, kHead);
    if (!bytes)
        return bytes.error();
    return bytes.value();
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

} // namespace

Status check_kernel_bytes(std::span<const std::uint8_t> f, const std::string& arch) {
    if (arch == "aarch64") {
        // The arm64 Image header: "ARM\x64" at 0x38 (an EFI stub's "MZ" may come first).
        if (starts_with(f, "ARM\x64", 0x38) || elf64_machine(f) == EM_AARCH64 || starts_with(f, kGzip))
            return ok();
        return Error{"not an arm64 kernel: no Image header (\"ARM\\x64\" at 0x38), not an aarch64 ELF, not a gzip'd "
                     "Image; " +
                     how_it_starts(f)};
    }
    if (has_setup_header(f) || elf64_machine(f) == EM_X86_64)
        return ok();
    if (unsigned m = elf64_machine(f))
        return Error{"an ELF file for machine " + std::to_string(m) + ", not x86_64 (62): a kernel of another "
                     "architecture? (--arch)"};
    return Error{"not an x86_64 kernel: no bzImage setup header (\"HdrS\" at 0x202) and not an x86_64 ELF "
                 "vmlinux; " +
                 how_it_starts(f)};
}

Status check_kernel_file(const std::string& path, const std::string& arch) {
    auto head = read_head(path);
    if (!head)
        return head.error();
    if (auto s = check_kernel_bytes(as_bytes(head.value()), arch); !s)
        return Error{path + ": " + s.error().message()};
    return ok();
}

Status check_image_bytes(std::span<const std::uint8_t> f) {
    // newc ("070701") and its checksummed form ("070702"); the compressors the kernel's
    // initramfs unpacker knows (CONFIG_RD_*).
    using namespace std::literals;
    static constexpr std::string_view kMagics[] = {"070701"sv, "070702"sv, kGzip, "BZh"sv, "\x5d\x00\x00"sv,
                                                   "\xfd" "7zXZ"sv, "\x89LZO"sv, "\x02\x21\x4c\x18"sv,
                                                   "\x28\xb5\x2f\xfd"sv};
    for (auto m : kMagics)
        if (starts_with(f, m))
            return ok();
    return Error{"not an initramfs: neither a newc cpio (\"070701\") nor a compressed one (gzip, bzip2, lzma, "
                 "xz, lzo, lz4, zstd); " +
                 how_it_starts(f)};
}

Status check_image_file(const std::string& path) {
    auto head = read_head(path);
    if (!head)
        return head.error();
    if (auto s = check_image_bytes(as_bytes(head.value())); !s)
        return Error{path + ": " + s.error().message()};
    return ok();
}

} // namespace initbench
