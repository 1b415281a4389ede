#include "host/boot/boot_stages.h"

#include <regex>

namespace initbench {
namespace {

// What the console shows, with the terminal's escape sequences (the firmware clears the
// screen and colours its banner) and other control bytes taken out.
std::string printable(std::string_view line) {
    static const std::regex escape("\x1b(\\[[0-9;?=]*[A-Za-z]|[a-zA-Z])");
    std::string text = std::regex_replace(std::string(line), escape, "");
    std::string out;
    for (char c : text)
        if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f)
            out += c;
    return out;
}

// The kernel's first line: a printk timestamp, or its EFI stub speaking before it.
bool kernel_line(const std::string& l) {
    static const std::regex printk("^\\[ *[0-9]+\\.[0-9]+\\] ");
    return l.rfind("EFI stub: ", 0) == 0 || std::regex_search(l, printk);
}

bool bootloader_line(Bootloader b, const std::string& l) {
    // iPXE's banner as it starts to boot (BIOS or EFI); its ROM's earlier line under SeaBIOS
    // ("iPXE (http://ipxe.org) 00:02.0 ...") is the firmware scanning option ROMs.
    if (b == Bootloader::ipxe)
        return l.find("Open Source Network Boot Firmware") != std::string::npos;
    return b == Bootloader::uboot && l.rfind("U-Boot ", 0) == 0;
}

nlohmann::json seconds(double s) {
    return s < 0 ? nlohmann::json() : nlohmann::json(s);
}

std::string bootloader_name(Bootloader b) {
    return b == Bootloader::ipxe ? "iPXE" : "U-Boot";
}

} // namespace

void BootStages::feed(std::string_view chunk, double at_s) {
    for (char c : chunk) {
        if (firmware_s_ < 0 && c != '\r' && c != '\n')
            firmware_s_ = at_s; // any output at all: the firmware runs first
        if (c == '\n' || c == '\r') {
            line_done(at_s);
        } else if (line_.size() < 4096) {
            line_.push_back(c);
        }
    }
}

void BootStages::line_done(double at_s) {
    const std::string l = printable(line_);
    line_.clear();
    if (l.empty())
        return;
    last_line_ = l;
    if (bootloader_s_ < 0 && kernel_s_ < 0 && bootloader_line(bootloader_, l))
        bootloader_s_ = at_s;
    if (kernel_s_ < 0 && kernel_line(l))
        kernel_s_ = at_s;
    if (first_record_s_ < 0 && l.find("IB1 ") != std::string::npos)
        first_record_s_ = at_s;
}

nlohmann::json BootStages::facts(double power_off_s) const {
    return {{"firmware_s", seconds(firmware_s_)},
            {"bootloader_s", seconds(bootloader_s_)},
            {"kernel_s", seconds(kernel_s_)},
            {"first_record_s", seconds(first_record_s_)},
            {"power_off_s", seconds(power_off_s)}};
}

std::string BootStages::where_it_stopped() const {
    std::string where;
    if (firmware_s_ < 0)
        where = "before the firmware printed anything";
    else if (bootloader_s_ < 0 && kernel_s_ < 0 && bootloader_ != Bootloader::uboot)
        where = "in the firmware, before " + bootloader_name(bootloader_) + " started";
    else if (kernel_s_ < 0)
        where = "in " + bootloader_name(bootloader_) + ", before the kernel started (DHCP, TFTP or its script)";
    else if (first_record_s_ < 0)
        where = "in the kernel, before the init's first record";
    else
        where = "after the init's first record";
    // A prompt (U-Boot's "=> ") ends no line: the unfinished one is the last thing shown.
    const std::string tail = printable(line_);
    const std::string& last = tail.empty() ? last_line_ : tail;
    return "stopped " + where + (last.empty() ? "" : "; the console's last line: '" + last + "'");
}

} // namespace initbench
