// The stages of a boot as its console shows them: QEMU's start, the firmware's first line,
// the bootloader's, the kernel's, the init's first record, power-off. A firmware boot's
// results say how long each took, and a boot that stopped says in which stage.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace initbench {

enum class Bootloader { none, ipxe, uboot };

class BootStages {
public:
    explicit BootStages(Bootloader bootloader) : bootloader_(bootloader) {}
    // A chunk of the console, `at_s` seconds after QEMU started.
    void feed(std::string_view chunk, double at_s);
    // Seconds from QEMU's start to each stage seen (null for one never seen), and power-off.
    nlohmann::json facts(double power_off_s) const;
    // Where a boot that sent no record stopped: "in the firmware, before iPXE started", ...,
    // with the console's last line.
    std::string where_it_stopped() const;
    bool kernel_started() const { return kernel_s_ >= 0; }

private:
    void line_done(double at_s);
    Bootloader bootloader_;
    std::string line_, last_line_;
    double firmware_s_ = -1, bootloader_s_ = -1, kernel_s_ = -1, first_record_s_ = -1;
};

} // namespace initbench
