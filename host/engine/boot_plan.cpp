#include "host/engine/boot_plan.h"

#include "host/boot/boot_files.h"
#include "host/boot/delay_loop.h"
#include "host/boot/kernel_image.h"
#include "host/image/image_paths.h"
#include "host/image/image_settings.h"

#include <cmath>
#include <optional>
#include <thread>

namespace initbench {
namespace {

// The frequency a TCG guest's TSC runs at: QEMU reads the host's TSC, or under icount counts
// one tick per nanosecond of virtual time.
Result<unsigned long> guest_tsc_khz(bool icount) {
    if (icount)
        return 1000000UL;
    std::string why_not;
    const auto khz = host_tsc_khz(why_not);
    if (!khz)
        return Error{"the guest's TSC frequency is not known: " + why_not};
    return static_cast<unsigned long>(std::lround(*khz));
}

// --boot ipxe, uefi or u-boot: its firmware files, on a machine that has the NIC it boots from.
Result<FirmwareSpec> plan_firmware_boot(const BootOptions& o) {
    const FirmwarePath path = firmware_path(o.boot);
    if (path == FirmwarePath::none) {
        if (!o.keep_tftp.empty())
            return Error{"--keep-tftp: only a firmware boot has a TFTP root (--boot ipxe, uefi or u-boot)"};
        return FirmwareSpec{};
    }
    if (o.machine == "microvm")
        return Error{"--boot " + o.boot + ": microvm has no PCI bus for the NIC a firmware boots from (--machine pc)"};
    auto spec = plan_firmware(path, o.arch);
    if (spec)
        spec.value().keep_tftp = o.keep_tftp;
    return spec;
}

} // namespace

Status choose_machine_model(const BootOptions& o, BootSpec& boot) {
    if (o.machine != "microvm")
        return ok();
    if (o.arch != "x86_64")
        return Error{"--machine microvm: an x86_64 machine (" + o.arch + " boots virt)"};
    boot.model = MachineModel::microvm;
    auto khz = guest_tsc_khz(boot.icount);
    if (!khz)
        return Error{"--machine microvm: " + khz.error().message()};
    boot.tsc_khz = khz.value();
    return ok();
}

Result<RunOptions> plan_boot(const BootOptions& o, const std::vector<std::string>& params, const char* argv0) {
    RunOptions run;
    run.boot.arch = o.arch;
    run.boot.image = o.image.empty() ? default_image(o.arch, argv0) : o.image;
    if (run.boot.image.empty())
        return Error{"no image for " + o.arch + " found; build it or pass --image"};
    if (auto s = check_image_file(run.boot.image); !s)
        return Error{"--image " + s.error().message()};
    if (o.boot == "pvh" && o.arch != "x86_64")
        return Error{"--boot pvh: PVH is an x86_64 boot protocol"};
    if (auto firmware = plan_firmware_boot(o); !firmware)
        return firmware.error();
    else
        run.boot.firmware = std::move(firmware.value());
    run.boot.params = params;

    const auto machine = choose_machine(image_settings(run.boot.image, params).config,
                                        o.cpus ? std::optional(o.cpus) : std::nullopt,
                                        o.memory_mb ? std::optional(o.memory_mb) : std::nullopt);
    if (machine.cpus > max_cpus(o.arch))
        return Error{std::to_string(machine.cpus) + " CPUs (" + machine.cpus_source + "): QEMU's " + o.arch +
                     " machine takes at most " + std::to_string(max_cpus(o.arch))};
    run.boot.cpus = machine.cpus;
    run.boot.memory_mb = machine.memory_mb;
    run.boot.topology = machine.topology;
    run.boot.host_cpus = std::thread::hardware_concurrency();
    run.machine = machine_facts(machine);

    run.boot.icount = o.clock == "icount";
    run.accel = o.accel == "kvm" ? AccelChoice::kvm : o.accel == "tcg" ? AccelChoice::tcg : AccelChoice::auto_;
    if (run.accel == AccelChoice::kvm && o.arch != host_arch())
        return Error{"--accel kvm: KVM runs " + host_arch() + " guests on this host, not " + o.arch};
    if (run.boot.icount && run.accel == AccelChoice::kvm)
        return Error{"--clock icount needs TCG"};
    if (run.boot.icount && run.boot.cpus > 1)
        // QEMU 7.2's icount scheduler stops running the second vCPU (docs/compare.md).
        return Error{"--clock icount works with one CPU only (" + std::to_string(run.boot.cpus) + " from " +
                     machine.cpus_source + "; --cpus 1 overrides)"};
    if (run.boot.icount)
        run.accel = AccelChoice::tcg;
    if (auto model = choose_machine_model(o, run.boot); !model)
        return model.error();
    run.machine["model"] = machine_model_name(run.boot);
    if (run.boot.tsc_khz)
        run.machine["tsc_khz"] = *run.boot.tsc_khz;
    run.timeout_s = o.timeout_s;
    run.kernel_config = o.kernel_config;
    run.cache_dir = default_cache_dir();
    return run;
}

} // namespace initbench
