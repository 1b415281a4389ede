// The directory a firmware boot's TFTP server serves (QEMU's user network), laid out per
// boot: the kernel, the image and the bootloader's script, exactly the files a lab's TFTP
// server would serve to a board. Removed when the boot ends, unless --keep-tftp named it.
#pragma once

#include "common/result.h"
#include "host/boot/qemu.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace initbench {

// The bootloader's script for a path: its file name on the TFTP root and its lines (the
// commands a lab's bootloader runs: LAVA's u-boot and ipxe boot methods type the same).
struct BootScript {
    std::string name;                  // boot.ipxe | boot.scr.uimg
    std::vector<std::string> commands; // the script's lines
};

// The files' names on the TFTP root.
std::string tftp_kernel_name(FirmwarePath path); // vmlinuz | Image
constexpr const char* kTftpImageName = "initrd.img";

// The script that loads the kernel and the image from the TFTP root and boots them with the
// kernel command line `cmdline`; when a step fails it says so and powers the machine off,
// so that a failed fetch ends the boot at once instead of at its timeout.
BootScript boot_script(FirmwarePath path, const std::string& cmdline);

class TftpRoot {
public:
    TftpRoot() = default;
    TftpRoot(const TftpRoot&) = delete;
    TftpRoot& operator=(const TftpRoot&) = delete;
    ~TftpRoot();
    std::string tftp_dir;    // what QEMU serves
    std::string sercon_file; // SeaBIOS's fw_cfg file (not served)
    BootScript script;
    nlohmann::json facts() const; // the files served, the script, where it was kept

private:
    friend Result<std::unique_ptr<TftpRoot>> lay_out_tftp_root(const BootSpec& spec);
    std::string work_dir_; // removed with this object
    bool kept_ = false;
};

// Lays out the TFTP root for spec (its kernel, image, firmware path and kernel command line).
Result<std::unique_ptr<TftpRoot>> lay_out_tftp_root(const BootSpec& spec);

} // namespace initbench
