// `initbench run`: boot a kernel with the image in QEMU, stream and check the console,
// and pick the accelerator (KVM only where it really runs guests).
#pragma once

#include "host/results/logparse.h"
#include "host/boot/kernel_image.h"
#include "host/base/process.h"
#include "host/boot/qemu.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace initbench {

enum class AccelChoice { auto_, kvm, tcg };

struct RunOptions {
    BootSpec boot;
    AccelChoice accel = AccelChoice::auto_;
    double timeout_s = 600;
    std::string log_path;   // raw console copy, "" for none
    bool echo = false;      // console to stderr as it arrives
    std::string cache_dir;  // remembers a host whose KVM does not run guests
    // How boot.kernel boots (choose_kernel_boot): QEMU gets its boot_path, and the results
    // its facts. Empty: boot.kernel as it is.
    KernelBoot kernel_boot;
    // Where the guest's CPUs, memory and topology came from (results: host.machine); null
    // when not worked out.
    nlohmann::json machine;
    // The kernel's .config: its SHA-256 goes into the environment fingerprint. "" for none.
    std::string kernel_config;
};

struct RunResult {
    ParsedLog log;
    ChildOutcome child;
    nlohmann::json host;        // facts for the results document
    nlohmann::json environment; // its fingerprint (host/results/environment.h)
    // A firmware boot's last stage (host/boot/boot_stages.h), "" for a -kernel boot; and
    // whether it stopped before the kernel printed anything.
    std::string stopped_at;
    bool before_kernel = false;
};

RunResult boot_and_collect(const RunOptions& options);

// The host's architecture as uname names it (x86_64, aarch64): KVM runs only its guests.
std::string host_arch();

} // namespace initbench
