#include "host/cli/lava_job_cli.h"

#include "host/image/image_paths.h"
#include "host/image/settings_check.h"
#include "host/lab/lava_job.h"
#include "host/results/results.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

namespace initbench {

void add_lava_job_command(CLI::App& app) {
    auto spec = std::make_shared<LavaJobSpec>();
    auto* cmd = app.add_subcommand("lava-job", "Write a LAVA job that boots the initbench image and reads its results");
    cmd->footer(R"(Exit codes:
  0  job written
  2  bad command line, or initbench.* parameters the init would refuse (checked against the image))");
    cmd->add_option("--kernel", spec->kernel_url, "Kernel URL (http://, file://)")->required();
    cmd->add_option("--image", spec->image_url, "initbench image URL")->required();
    cmd->add_option("--device-type", spec->device_type, "LAVA device type (qemu, or a board's)")->capture_default_str();
    cmd->add_option("--arch", spec->arch, "Guest architecture")
        ->check(CLI::IsMember({"x86_64", "aarch64"}))
        ->capture_default_str();
    cmd->add_option("--console", spec->console, "Serial console device (default ttyS0 or ttyAMA0)");
    cmd->add_option("--boot-method", spec->boot_method, "A board's boot method (default u-boot)");
    cmd->add_option("--kernel-type", spec->kernel_type, "A board's kernel type for u-boot (image, zimage, uimage)");
    cmd->add_option("--timeout", spec->timeout_minutes, "Job and test timeout in minutes")->capture_default_str();
    cmd->add_option("--check-image", spec->check_image,
                    "A local copy of the image, to check the initbench.* parameters against (default: the one "
                    "built or installed)")
        ->check(CLI::ExistingFile);
    cmd->add_option("params", spec->params, "Kernel parameters after --, e.g. initbench.profile=NAME");
    cmd->callback([spec] {
        const std::string image = spec->check_image.empty() ? default_image(spec->arch, "initbench") : spec->check_image;
        if (image.empty())
            std::cerr << "initbench lava-job: the parameters are not checked: no local image (--check-image)\n";
        else if (!settings_accepted("lava-job", image, spec->params))
            throw CLI::RuntimeError(kExitUsage);
        std::cout << lava_job_yaml(*spec);
    });
}

} // namespace initbench
