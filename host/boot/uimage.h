// A U-Boot script image (the legacy uImage format mkimage -T script writes): U-Boot's distro
// boot fetches boot.scr.uimg over TFTP and runs it with `source`, which checks this header.
// Written here so that a boot needs no u-boot-tools on the host.
#pragma once

#include <string>
#include <string_view>

namespace initbench {

// The 64-byte header (magic, CRCs, Linux on arm64, type script, no compression, `name`)
// and the script as its one part. The time field is 0, so the same script gives the same file.
std::string uboot_script_image(std::string_view script, std::string_view name);

} // namespace initbench
