// How a kernel is to be booted, as the user asked: `run`, `bisect-step` and `ab` take the
// same options (host/cli/boot_cli.h declares them once, host/engine/boot_plan.h plans a
// boot from them).
#pragma once

#include <string>

namespace initbench {

struct BootOptions {
    std::string image;            // "": the image built or installed beside the CLI
    std::string arch = "x86_64";  // x86_64 | aarch64
    std::string accel = "auto";   // auto (KVM only where it really runs guests) | kvm | tcg
    std::string boot = "auto";    // x86_64: auto | pvh | bzimage | ipxe | uefi; aarch64: auto | u-boot
    std::string keep_tftp;        // a firmware boot's TFTP root is laid out here and kept ("": removed)
    std::string clock = "wall";   // wall | icount
    std::string machine = "pc";   // x86_64: pc | microvm
    unsigned cpus = 0;            // 0: the experiment's machine.cpus, else 1
    unsigned memory_mb = 0;       // 0: the experiment's machine.memory_mb, else 1024
    double timeout_s = 600;       // seconds before QEMU is stopped
    std::string kernel_config;    // the kernel's .config ("": the one beside the kernel, if any)
};

} // namespace initbench
