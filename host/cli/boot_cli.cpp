#include "host/cli/boot_cli.h"

namespace initbench {

void add_boot_options(CLI::App& cmd, BootOptions& o) {
    cmd.add_option("--image", o.image, "initbench image (default: the one built or installed)")
        ->check(CLI::ExistingFile);
    cmd.add_option("--arch", o.arch, "Guest architecture")
        ->check(CLI::IsMember({"x86_64", "aarch64"}))
        ->capture_default_str();
    cmd.add_option("--cpus", o.cpus,
                   "Guest CPUs (default: the experiment's machine.cpus, else 1; at most 255 on x86_64, 512 on aarch64)")
        ->check(CLI::Range(1, 512));
    cmd.add_option("--memory", o.memory_mb, "Guest memory in MiB (default: the experiment's machine.memory_mb, else 1024)")
        ->check(CLI::Range(64, 1 << 20));
    cmd.add_option("--accel", o.accel, "auto uses KVM only where it really runs guests")
        ->check(CLI::IsMember({"auto", "kvm", "tcg"}))
        ->capture_default_str();
    cmd.add_option("--boot", o.boot,
                   "x86_64: pvh boots the vmlinux inside a bzImage at its PVH entry (no decompression in the "
                   "guest); auto does where the kernel has one. As a board boots, the kernel and image fetched "
                   "over DHCP and TFTP: ipxe (x86_64: SeaBIOS, iPXE), uefi (x86_64: OVMF, iPXE's EFI build, the "
                   "kernel's EFI stub), u-boot (aarch64: U-Boot's distro boot script, booti)")
        ->check(CLI::IsMember({"auto", "pvh", "bzimage", "ipxe", "uefi", "u-boot"}))
        ->capture_default_str();
    cmd.add_option("--keep-tftp", o.keep_tftp,
                   "--boot ipxe, uefi or u-boot: lay the TFTP root (kernel, image, bootloader script) out in this "
                   "directory and keep it (default: a temporary one, removed)");
    cmd.add_option("--clock", o.clock, "wall, or icount: QEMU's instruction-counting clock (TCG)")
        ->check(CLI::IsMember({"wall", "icount"}))
        ->capture_default_str();
    cmd.add_option("--machine", o.machine,
                   "x86_64's machine model: microvm has no PCI bus or firmware tables (its kernel comes up a "
                   "little faster) and no timer to calibrate the TSC against, so it is told the TSC's frequency "
                   "(tsc_early_khz=)")
        ->check(CLI::IsMember({"pc", "microvm"}))
        ->capture_default_str();
    cmd.add_option("--timeout", o.timeout_s, "Seconds before QEMU is stopped (per boot)")
        ->check(CLI::Range(1.0, 604800.0))
        ->capture_default_str();
    cmd.add_option("--kernel-config", o.kernel_config,
                   "The kernel's .config: its SHA-256 goes into the results (environment.kernel_config), its "
                   "CONFIG_HZ into TCG's lpj= (without it, lpj= reads the .config beside the kernel)")
        ->check(CLI::ExistingFile);
}

} // namespace initbench
