// `initbench lava-job`: a LAVA job that boots the initbench image (deploy to tmpfs, boot,
// and a "monitors" test that turns the image's LAVA summary lines into LAVA results).
#pragma once

#include <string>
#include <vector>

namespace initbench {

struct LavaJobSpec {
    std::string kernel_url, image_url;
    std::string device_type = "qemu";
    std::string arch = "x86_64";     // x86_64 | aarch64
    std::string console;             // default: ttyS0 (x86_64), ttyAMA0 (aarch64)
    std::string boot_method;         // default: qemu for device type qemu, else tftp? see docs
    std::string kernel_type;         // for u-boot/tftp boards: image, zimage, uimage
    std::vector<std::string> params; // initbench.KEY=VALUE and kernel parameters
    unsigned timeout_minutes = 15;
    // A local copy of the image the job boots, to check `params` against its profiles before
    // the job is written (default: the one built or installed, when there is one).
    std::string check_image;
};

// The job as YAML. Throws std::invalid_argument on a spec LAVA would refuse.
std::string lava_job_yaml(const LavaJobSpec& spec);

// The regex a monitors test uses to read the image's summary lines.
std::string lava_monitor_pattern();

} // namespace initbench
