// The QEMU command line for booting a kernel with an initbench image, per architecture,
// built as an argument vector (never a shell string).
#pragma once

#include "common/machine.h"
#include "host/boot/firmware_boot.h"

#include <optional>
#include <string>
#include <vector>

namespace initbench {

enum class Accel { tcg, kvm };

// x86_64's machine model. microvm has no PCI bus, no firmware tables to walk and no HPET or PM
// timer: the kernel boots faster, but cannot calibrate its TSC against a reference under TCG
// (it hung in 4 boots of 10 here), so it is told the frequency (tsc_early_khz=).
enum class MachineModel { pc, microvm };

struct BootSpec {
    std::string arch = "x86_64"; // x86_64 | aarch64
    MachineModel model = MachineModel::pc; // x86_64 only; aarch64 is always virt
    std::string kernel;
    std::string image;
    unsigned cpus = 1;
    unsigned memory_mb = 1024;
    std::optional<Topology> topology;    // sockets, cores and threads of `cpus`
    Accel accel = Accel::tcg;
    bool icount = false;                 // QEMU's instruction-counting clock
    unsigned host_cpus = 0;              // the host's CPUs (0: unknown): TCG's threading follows
    std::vector<std::string> params;     // initbench.KEY=VALUE and any kernel parameter
    std::optional<unsigned long long> lpj; // lpj= after params (host/boot/delay_loop.h)
    std::optional<unsigned long> tsc_khz;  // microvm: the guest TSC's frequency, tsc_early_khz=
    // A board's boot (host/boot/firmware_boot.h): the firmware fetches kernel and image from
    // firmware.tftp_dir, and QEMU gets no -kernel, -initrd or -append.
    FirmwareSpec firmware;
};

// The most vCPUs QEMU's machine takes: x86_64's pc machine without an IOMMU (x2APIC IDs
// beyond 255 need one), aarch64's virt with GICv3 (GICv2 stops at 8).
unsigned max_cpus(const std::string& arch);

std::string qemu_binary(const std::string& arch);
std::string serial_console(const std::string& arch); // ttyS0 | ttyAMA0
std::string kernel_cmdline(const BootSpec& spec);
std::string machine_model_name(const BootSpec& spec); // "pc" | "microvm" | "virt"
std::vector<std::string> qemu_argv(const BootSpec& spec);

// KVM is usable only if /dev/kvm opens read-write; whether guests then really run is only
// known by booting one (on some hosts they hang), which the runner does with a deadline.
bool kvm_device_usable(std::string& why_not);

} // namespace initbench
