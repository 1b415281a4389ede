// The delay loop's calibration, given to an x86_64 kernel under TCG as `lpj=`.
//
// Every x86_64 CPU past the first calibrates its delay loop against the timer tick as it comes
// up. Under TCG those measurements scatter (calibrate_delay_direct() gives up: "Probably due to
// long platform interrupts") and the slow fallback runs, longer with every CPU online: Debian's
// 6.1 brought up 128 vCPUs in 195 s here, and in 1.3 s with `lpj=`. The value is what the first
// CPU works out itself, the TSC's cycles per tick (tsc_khz * 1000 / HZ): under TCG the guest's
// TSC is the host's, and HZ is in the kernel's .config.
#pragma once

#include "host/boot/qemu.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace initbench {

struct DelayLoop {
    std::optional<unsigned long long> lpj; // the value to give, when known
    nlohmann::json facts;                  // host.delay_loop: how it was worked out, or why not
};

// For a TCG boot of spec (its kernel the file the user gave): nothing (facts null) where
// the kernel calibrates quickly (one CPU, aarch64's timer-based delay) or the user gave lpj=;
// else lpj and how it was found, or no lpj and the reason. kernel_config is --kernel-config
// ("" for none).
DelayLoop tcg_delay_loop(const BootSpec& spec, const std::string& kernel_config);

// The .config that belongs to a kernel file, where a layout says so: Debian's and Fedora's
// /boot (config-RELEASE beside vmlinuz-RELEASE) and a build tree (.config above
// arch/*/boot/bzImage, or beside vmlinux). "" when there is none.
std::string config_beside_kernel(const std::string& kernel);

// CONFIG_HZ of a .config's text.
std::optional<unsigned> config_hz(std::string_view config_text);

// The host's TSC in kHz, measured against CLOCK_MONOTONIC_RAW; nullopt, with why_not, on a
// host without a constant TSC (or not x86_64).
std::optional<double> host_tsc_khz(std::string& why_not);

// loops_per_jiffy as the kernel works it out from its TSC, tsc_khz * 1000 / HZ, of the TSC
// rounded to a whole MHz (0.05 % at 1 GHz; the same on every boot of one host).
unsigned long long tsc_lpj(double tsc_khz, unsigned hz);

} // namespace initbench
