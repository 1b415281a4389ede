#include "host/boot/qemu.h"

#include "common/config.h"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace initbench {

std::string qemu_binary(const std::string& arch) {
    return arch == "aarch64" ? "qemu-system-aarch64" : "qemu-system-x86_64";
}

std::string serial_console(const std::string& arch) {
    return arch == "aarch64" ? "ttyAMA0" : "ttyS0";
}

std::string kernel_cmdline(const BootSpec& spec) {
    // panic=-1 reboots at once on a panic, and -no-reboot turns that into QEMU's exit.
    std::string cmdline = "console=" + serial_console(spec.arch) + " panic=-1";
    // Before the user's parameters, so that a tsc_early_khz= of theirs wins.
    if (spec.model == MachineModel::microvm && spec.tsc_khz)
        cmdline += " tsc_early_khz=" + std::to_string(*spec.tsc_khz);
    for (const auto& p : spec.params)
        cmdline += " " + cmdline_word(p);
    if (spec.lpj)
        cmdline += " lpj=" + std::to_string(*spec.lpj);
    return cmdline;
}

std::string machine_model_name(const BootSpec& spec) {
    if (spec.arch == "aarch64")
        return "virt";
    return spec.model == MachineModel::microvm ? "microvm" : "pc";
}

unsigned max_cpus(const std::string& arch) {
    return arch == "aarch64" ? 512 : 255;
}

static bool tcg_single_thread(const BootSpec& spec) {
    // As many vCPU threads as host CPUs or more, QEMU 7.2's multi-threaded TCG lost the wake-up
    // of a halted vCPU: with 18 vCPUs on 2 cores, one in six boots froze (a CPU idle since 12 s
    // with the RCU kthread runnable on it, QEMU's main thread at 100 %; boot.PageFragProfile's
    // CI timeout); with 2 on 2 cores (QEMU's own threads beside them), about one boot in 50
    // (PID 1 in a soft lockup on CPU 1, or its console stopping mid-record). One thread taking
    // the vCPUs in turn never did; it costs 2 vCPUs about 1.3 s of a 6 s run. But there each
    // vCPU waiting for another spins through its whole time slice: 128 vCPUs ran phases=none in
    // 198 s on one thread, 84 s on a thread each (scripts/bench-many-cpus.sh): many vCPUs get
    // a thread each.
    constexpr unsigned kOneThreadUpTo = 32;
    return spec.host_cpus > 0 && spec.cpus > 1 && spec.cpus >= spec.host_cpus && spec.cpus <= kOneThreadUpTo;
}

std::vector<std::string> qemu_argv(const BootSpec& spec) {
    std::vector<std::string> argv = {qemu_binary(spec.arch), "-nodefaults", "-no-user-config",
                                     "-display", "none", "-serial", "stdio", "-no-reboot"};
    auto add = [&](std::initializer_list<std::string> more) { argv.insert(argv.end(), more); };
    if (spec.arch == "aarch64")
        add({"-machine", spec.cpus > 8 ? "virt,gic-version=3" : "virt"});
    else if (spec.model == MachineModel::microvm)
        add({"-machine", "microvm"});
    if (spec.accel == Accel::kvm) {
        add({"-accel", "kvm", "-cpu", "host"});
    } else if (spec.icount) {
        add({"-accel", "tcg", "-icount", "shift=4,align=off,sleep=off", "-cpu", "max"});
    } else {
        add({"-accel", tcg_single_thread(spec) ? "tcg,thread=single" : "tcg", "-cpu", "max"});
    }
    std::string smp = std::to_string(spec.cpus);
    if (spec.topology)
        smp += ",sockets=" + std::to_string(spec.topology->sockets) + ",cores=" + std::to_string(spec.topology->cores) +
               ",threads=" + std::to_string(spec.topology->threads);
    add({"-smp", smp, "-m", std::to_string(spec.memory_mb)});
    if (spec.firmware.path != FirmwarePath::none) {
        const auto more = firmware_qemu_args(spec.firmware);
        argv.insert(argv.end(), more.begin(), more.end());
        return argv;
    }
    add({"-kernel", spec.kernel, "-initrd", spec.image, "-append", kernel_cmdline(spec)});
    return argv;
}

bool kvm_device_usable(std::string& why_not) {
    int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        why_not = std::string("/dev/kvm: ") + std::strerror(errno);
        return false;
    }
    ::close(fd);
    return true;
}

} // namespace initbench
