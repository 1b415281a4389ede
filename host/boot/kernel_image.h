// PVH direct boot of x86_64 kernels. Under TCG a bzImage spends ~10 s decompressing itself;
// QEMU boots the uncompressed vmlinux through its PVH entry (the Xen ELF note that CONFIG_PVH
// adds) in a fraction of that. The host takes the vmlinux out of the bzImage once, checks the
// note, and caches it by the bzImage's SHA-256.
#pragma once

#include "common/result.h"
#include "host/boot/decompress.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace initbench {

// The most a payload may decompress to: far above any real vmlinux (~60 MiB).
constexpr std::size_t kMaxVmlinuxBytes = std::size_t(1) << 30;

// x86 boot protocol setup header fields, offsets absolute in the file.
struct SetupHeader {
    unsigned protocol = 0;          // e.g. 0x20f for 2.15
    std::size_t setup_bytes = 0;    // real-mode part: (setup_sects + 1) * 512
    std::size_t payload_offset = 0; // 0 when the protocol predates payload fields (2.08)
    std::size_t payload_length = 0;
};

// True when the file has the "HdrS" magic of a bzImage's setup header.
bool has_setup_header(std::span<const std::uint8_t> file);

// Reads the setup header. An error when the file is cut short or the payload lies outside it.
Result<SetupHeader> parse_setup_header(std::span<const std::uint8_t> file);

// What the ELF notes of an x86_64 vmlinux say.
struct VmlinuxNotes {
    bool pvh = false;            // a "Xen" note of type XEN_ELFNOTE_PHYS32_ENTRY
    std::uint64_t pvh_entry = 0; // its physical entry address
    std::string build_id;        // NT_GNU_BUILD_ID as hex, "" when absent
};

bool is_elf(std::span<const std::uint8_t> file);

// An error when the bytes are not an ELF64 x86_64 file or its notes are malformed.
Result<VmlinuxNotes> read_vmlinux_notes(std::span<const std::uint8_t> elf);

// A kernel that QEMU can boot through PVH, or why not.
struct PvhKernel {
    std::string path;       // the vmlinux to boot; "" when PVH is impossible
    std::string reason;     // why PVH is impossible
    VmlinuxNotes notes;
    std::string compression; // of the bzImage's payload, when this call decompressed it
    bool extracted = false;  // this call wrote the cache file (false on a cache hit)
};

// For an ELF vmlinux: the file itself when it has the PVH note. For a bzImage: its payload,
// decompressed into <cache_dir>/vmlinux/<sha256> (atomically, safe to run concurrently) or
// found there. An error when the file is a damaged bzImage or the cache cannot be written.
Result<PvhKernel> pvh_kernel(const std::string& kernel, const std::string& sha256, const std::string& cache_dir);

// ipxe, uefi and uboot boot as a board does (host/boot/firmware_boot.h): the kernel file is
// served over TFTP as it is.
enum class BootMode { auto_, pvh, bzimage, ipxe, uefi, uboot };

// "pvh", "bzimage", "ipxe", "uefi", "u-boot", anything else auto (the command lines check the word).
BootMode boot_mode(const std::string& word);

// How a run boots its kernel: what QEMU gets as -kernel, and the facts of host.boot.
struct KernelBoot {
    std::string protocol;  // pvh | bzimage | image (aarch64)
    std::string boot_path; // the file given to QEMU
    std::string reason;    // why not PVH, when an x86_64 kernel boots through its bzImage
    std::string kernel_sha256;
    PvhKernel pvh;
    nlohmann::json facts() const;
};

// Picks the boot protocol. An error when `mode` is pvh and PVH is impossible, when the
// kernel is a damaged bzImage, when it cannot be read, or when a firmware path cannot boot it
// (check_firmware_kernel).
Result<KernelBoot> choose_kernel_boot(const std::string& kernel, const std::string& arch, BootMode mode,
                                      const std::string& cache_dir);

// $INITBENCH_CACHE, else ~/.cache/initbench.
std::string default_cache_dir();

} // namespace initbench
