// Booting as a board does: a firmware and a bootloader fetch the kernel and the image over
// DHCP and TFTP (QEMU's user network), nothing is passed by -kernel. Three paths, each with
// Debian's firmware: x86_64 `ipxe` (SeaBIOS, then iPXE from the NIC's option ROM), x86_64
// `uefi` (OVMF, then the EFI build of the same ROM, then the kernel's EFI stub) and aarch64
// `u-boot` (U-Boot for QEMU's virt machine, its distro boot's DHCP boot script, booti).
#pragma once

#include "common/result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace initbench {

enum class FirmwarePath { none, ipxe, uefi, uboot };

// "ipxe", "uefi", "u-boot" name a path; any other word none (the command lines check it).
FirmwarePath firmware_path(const std::string& word);
std::string firmware_path_name(FirmwarePath path);

// A file QEMU is given, and the Debian package that installs it.
struct FirmwareFile {
    std::string role; // "firmware" | "nic-rom"
    std::string path;
    std::string package;
};

// What QEMU boots on a firmware path, planned before it starts.
struct FirmwareSpec {
    FirmwarePath path = FirmwarePath::none;
    std::vector<FirmwareFile> files;
    std::string keep_tftp;  // --keep-tftp: the TFTP root is laid out here and kept ("": a temporary one)
    std::string tftp_dir;   // where the TFTP root is for this boot (set when it is laid out)
    std::string sercon_file; // SeaBIOS's serial console port, as the fw_cfg file it reads
};

// The firmware files of a path for `arch`, each checked to exist. Errors name the cure: the
// --arch the path boots, or the Debian package that installs a missing file.
Result<FirmwareSpec> plan_firmware(FirmwarePath path, const std::string& arch);

// Whether the kernel file can be booted on this path: a bzImage for ipxe, one with an EFI
// stub (a PE header) for uefi, an uncompressed arm64 Image that fits below U-Boot's ramdisk
// address for u-boot. The error says what the file is and what to give instead.
Status check_firmware_kernel(const std::string& kernel, FirmwarePath path);

// QEMU's arguments for the firmware, the network and the NIC (after -smp and -m).
std::vector<std::string> firmware_qemu_args(const FirmwareSpec& spec);

// The firmware files with their packages' installed versions (dpkg's status), for host.boot.
nlohmann::json firmware_facts(const FirmwareSpec& spec);

} // namespace initbench
