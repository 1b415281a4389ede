#include "host/boot/tftp_root.h"

#include "host/boot/uimage.h"
#include "host/base/output_file.h"
#include "sys/sys.h"

#include <cstdlib>
#include <filesystem>

namespace initbench {
namespace {

namespace fs = std::filesystem;

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& l : lines)
        text += l + "\n";
    return text;
}

// A hard link where the file system allows one (no copy of a 30 MiB kernel per boot), else a
// copy; always a copy in a kept root, which must not change when the kernel is rebuilt.
Status place(const std::string& from, const fs::path& to, bool kept) {
    std::error_code ec;
    fs::remove(to, ec);
    if (!kept)
        fs::create_hard_link(from, to, ec);
    if (kept || ec)
        fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
    if (ec)
        return Error{"cannot put " + from + " into the TFTP root as " + to.string() + ": " + ec.message()};
    return ok();
}

Result<std::string> make_work_dir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/initbench-tftp-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        return errno_error("mkdtemp " + pattern);
    return pattern;
}

Status write_script(const TftpRoot& root, FirmwarePath path) {
    const fs::path dir = root.tftp_dir;
    if (path != FirmwarePath::uboot)
        return write_output_file(dir / root.script.name, joined(root.script.commands));
    // The plain text beside the image, for the user to read: U-Boot fetches only the image.
    IB_TRY(write_output_file(dir / "boot.cmd", joined(root.script.commands)));
    return write_output_file(dir / root.script.name, uboot_script_image(joined(root.script.commands), "initbench"));
}

} // namespace

std::string tftp_kernel_name(FirmwarePath path) {
    return path == FirmwarePath::uboot ? "Image" : "vmlinuz";
}

BootScript boot_script(FirmwarePath path, const std::string& cmdline) {
    const std::string kernel = tftp_kernel_name(path);
    if (path == FirmwarePath::uboot)
        // U-Boot's hush: single quotes keep the command line's own quotes and any $ as they are.
        return {"boot.scr.uimg",
                {"setenv bootargs '" + cmdline + "'",
                 "tftpboot ${kernel_addr_r} " + kernel + " || poweroff",
                 std::string("tftpboot ${ramdisk_addr_r} ") + kTftpImageName + " || poweroff",
                 "booti ${kernel_addr_r} ${ramdisk_addr_r}:${filesize} ${fdtcontroladdr}",
                 "echo initbench: booti returned", "poweroff"}};
    // initrd= names the image for the kernel's EFI stub: Debian's iPXE (2019) hands an EFI
    // kernel its initrd as a file to load by name, not by the protocol newer kernels ask for
    // first; without it the kernel found no root ("VFS: Unable to mount root fs"). A BIOS
    // boot ignores it. One script then serves both paths.
    return {"boot.ipxe",
            {"#!ipxe", "kernel " + kernel + " initrd=" + kTftpImageName + " " + cmdline + " || goto failed",
             std::string("initrd ") + kTftpImageName + " || goto failed", "boot || goto failed", ":failed",
             "echo initbench: the boot script failed", "poweroff"}};
}

TftpRoot::~TftpRoot() {
    std::error_code ec;
    if (!work_dir_.empty())
        fs::remove_all(work_dir_, ec);
}

nlohmann::json TftpRoot::facts() const {
    nlohmann::json files = nlohmann::json::array();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(tftp_dir, ec))
        files.push_back({{"name", e.path().filename().string()}, {"bytes", fs::file_size(e.path(), ec)}});
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a["name"] < b["name"]; });
    return {{"files", files}, {"kept", kept_ ? nlohmann::json(tftp_dir) : nlohmann::json()}};
}

Result<std::unique_ptr<TftpRoot>> lay_out_tftp_root(const BootSpec& spec) {
    auto root = std::make_unique<TftpRoot>();
    auto work = make_work_dir();
    if (!work)
        return work.error();
    root->work_dir_ = work.value();
    root->kept_ = !spec.firmware.keep_tftp.empty();
    root->tftp_dir = root->kept_ ? spec.firmware.keep_tftp : root->work_dir_ + "/tftp";
    std::error_code ec;
    fs::create_directories(root->tftp_dir, ec);
    if (ec)
        return Error{"--keep-tftp " + root->tftp_dir + ": " + ec.message()};
    const FirmwarePath path = spec.firmware.path;
    IB_TRY(place(spec.kernel, fs::path(root->tftp_dir) / tftp_kernel_name(path), root->kept_));
    IB_TRY(place(spec.image, fs::path(root->tftp_dir) / kTftpImageName, root->kept_));
    root->script = boot_script(path, kernel_cmdline(spec));
    IB_TRY(write_script(*root, path));
    // SeaBIOS reads its serial console's I/O port (COM1, 0x3f8) from this fw_cfg file, little-endian.
    root->sercon_file = root->work_dir_ + "/sercon-port";
    IB_TRY(write_output_file(root->sercon_file, std::string("\xf8\x03", 2)));
    return root;
}

} // namespace initbench
