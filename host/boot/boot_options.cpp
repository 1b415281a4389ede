#include "host/boot/boot_options.h"

#include "common/text.h"

namespace initbench {

std::vector<std::string> run_arguments(const BootOptions& o) {
    std::vector<std::string> argv = {"--image", o.image, "--arch",    o.arch,
                                     "--accel", o.accel, "--boot",    o.boot,
                                     "--clock", o.clock, "--machine", o.machine,
                                     "--timeout", format_number(o.timeout_s, "%.17g")};
    if (o.cpus)
        argv.insert(argv.end(), {"--cpus", std::to_string(o.cpus)});
    if (o.memory_mb)
        argv.insert(argv.end(), {"--memory", std::to_string(o.memory_mb)});
    if (!o.kernel_config.empty())
        argv.insert(argv.end(), {"--kernel-config", o.kernel_config});
    return argv;
}

} // namespace initbench
