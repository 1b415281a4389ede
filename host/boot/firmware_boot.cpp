#include "host/boot/firmware_boot.h"

#include "host/boot/debian_package.h"
#include "host/boot/kernel_image.h"
#include "sys/sys.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace initbench {
namespace {

namespace fs = std::filesystem;

// Where Debian 12 installs each firmware file QEMU is given.
const FirmwareFile kSeaBios{"firmware", "/usr/share/seabios/bios-256k.bin", "seabios"};
const FirmwareFile kOvmf{"firmware", "/usr/share/ovmf/OVMF.fd", "ovmf"};
const FirmwareFile kUBoot{"firmware", "/usr/lib/u-boot/qemu_arm64/u-boot.bin", "u-boot-qemu"};
// iPXE's e1000 ROM holds both builds: the BIOS one (SeaBIOS runs it) and the EFI driver
// (OVMF loads it), so both x86_64 paths fetch through the same iPXE.
const FirmwareFile kE1000Rom{"nic-rom", "/usr/lib/ipxe/qemu/efi-e1000.rom", "ipxe-qemu"};

// U-Boot's qemu_arm64 environment: the kernel goes to kernel_addr_r (0x40400000) and the
// image to ramdisk_addr_r (0x44000000), so a kernel larger than the gap would be overwritten.
constexpr std::uint64_t kUBootKernelRoom = 0x44000000 - 0x40400000;

std::uint64_t le(const std::string& f, std::size_t at, std::size_t bytes) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes && at + i < f.size(); i++)
        v |= std::uint64_t(static_cast<unsigned char>(f[at + i])) << (8 * i);
    return v;
}

bool has_at(const std::string& f, std::string_view magic, std::size_t at) {
    return f.size() >= at + magic.size() && f.compare(at, magic.size(), magic) == 0;
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// A PE header where the DOS stub points (e_lfanew at 0x3c): the kernel has an EFI stub.
bool has_efi_stub(const std::string& f) {
    return has_at(f, "MZ", 0) && has_at(f, std::string_view("PE\0\0", 4), le(f, 0x3c, 4));
}

Status check_uboot_kernel(const std::string& kernel, const std::string& head) {
    if (!has_at(head, "ARM\x64", 0x38))
        return Error{kernel + ": --boot u-boot boots an uncompressed arm64 Image (booti); this is not one "
                     "(a gzip'd vmlinuz? gunzip it; a vmlinux? give arch/arm64/boot/Image)"};
    std::error_code ec;
    const std::uint64_t size = std::max<std::uint64_t>(le(head, 0x10, 8), fs::file_size(kernel, ec));
    if (size > kUBootKernelRoom)
        return Error{kernel + ": " + std::to_string(size >> 20) + " MiB does not fit between U-Boot's kernel_addr_r "
                     "and ramdisk_addr_r (" + std::to_string(kUBootKernelRoom >> 20) + " MiB)"};
    return ok();
}

} // namespace

FirmwarePath firmware_path(const std::string& word) {
    if (word == "ipxe")
        return FirmwarePath::ipxe;
    if (word == "uefi")
        return FirmwarePath::uefi;
    return word == "u-boot" ? FirmwarePath::uboot : FirmwarePath::none;
}

std::string firmware_path_name(FirmwarePath path) {
    switch (path) {
    case FirmwarePath::ipxe: return "ipxe";
    case FirmwarePath::uefi: return "uefi";
    case FirmwarePath::uboot: return "u-boot";
    case FirmwarePath::none: break;
    }
    return "";
}

Result<FirmwareSpec> plan_firmware(FirmwarePath path, const std::string& arch) {
    FirmwareSpec spec;
    spec.path = path;
    if (path == FirmwarePath::none)
        return spec;
    const std::string name = firmware_path_name(path);
    const std::string wants = path == FirmwarePath::uboot ? "aarch64" : "x86_64";
    if (arch != wants)
        return Error{"--boot " + name + " boots " + wants + " (--arch " + wants + ")" +
                     (path == FirmwarePath::uboot ? "; x86_64 boots as a board through --boot ipxe or uefi"
                                                  : "; aarch64 boots as a board through --boot u-boot")};
    if (path == FirmwarePath::ipxe)
        spec.files = {kSeaBios, kE1000Rom};
    else if (path == FirmwarePath::uefi)
        spec.files = {kOvmf, kE1000Rom};
    else
        spec.files = {kUBoot};
    // Another root for the firmware files (a distribution that installs Debian's packages
    // elsewhere; the tests' empty directory): $INITBENCH_FIRMWARE_ROOT.
    const char* root = std::getenv("INITBENCH_FIRMWARE_ROOT");
    for (auto& f : spec.files) {
        if (root && *root)
            f.path = (fs::path(root) / fs::path(f.path).relative_path()).string();
        if (!fs::exists(f.path))
            return Error{"--boot " + name + ": " + f.path + " is missing: install Debian's " + f.package +
                         " (apt-get install " + f.package + ")"};
    }
    return spec;
}

Status check_firmware_kernel(const std::string& kernel, FirmwarePath path) {
    if (path == FirmwarePath::none)
        return ok();
    auto head = read_file(kernel, 4096);
    if (!head)
        return head.error();
    const std::string& f = head.value();
    if (path == FirmwarePath::uboot)
        return check_uboot_kernel(kernel, f);
    const std::string name = firmware_path_name(path);
    if (!has_setup_header(bytes_of(f)))
        return Error{kernel + ": --boot " + name + " loads a bzImage (iPXE's kernel command); this is not one (a "
                     "vmlinux? give arch/x86/boot/bzImage)"};
    if (path == FirmwarePath::uefi && !has_efi_stub(f))
        return Error{kernel + ": --boot uefi starts the kernel's EFI stub, and this bzImage has none "
                     "(CONFIG_EFI_STUB=y builds it; --boot ipxe boots it as it is)"};
    return ok();
}

std::vector<std::string> firmware_qemu_args(const FirmwareSpec& spec) {
    const bool arm = spec.path == FirmwarePath::uboot;
    // DHCP names the first file: iPXE runs it as its script; U-Boot's distro boot asks for
    // boot.scr.uimg by name whatever DHCP says, and the name here makes that explicit.
    const std::string netdev = "user,id=net0,tftp=" + spec.tftp_dir + ",bootfile=" + (arm ? "boot.scr.uimg" : "boot.ipxe");
    std::vector<std::string> args = {"-bios", spec.files.at(0).path, "-netdev", netdev};
    if (arm) {
        // No option ROM: QEMU's default one for virtio-net is an x86 iPXE that U-Boot ignores.
        args.insert(args.end(), {"-device", "virtio-net-pci,netdev=net0,romfile="});
        return args;
    }
    std::string nic = "e1000,netdev=net0,romfile=" + spec.files.at(1).path;
    if (spec.path == FirmwarePath::uefi) {
        args.insert(args.end(), {"-device", nic + ",bootindex=1"});
        return args;
    }
    // SeaBIOS prints to the serial port (and so does iPXE through it) only when fw_cfg tells it
    // which port: without it the firmware's stages would leave no line on the console.
    args.insert(args.end(), {"-device", nic, "-boot", "order=n", "-fw_cfg", "name=etc/sercon-port,file=" + spec.sercon_file});
    return args;
}

nlohmann::json firmware_facts(const FirmwareSpec& spec) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : spec.files) {
        const std::string version = installed_version(f.package);
        files.push_back({{"role", f.role},
                         {"file", f.path},
                         {"package", f.package},
                         {"version", version.empty() ? nlohmann::json() : nlohmann::json(version)}});
    }
    return files;
}

} // namespace initbench
