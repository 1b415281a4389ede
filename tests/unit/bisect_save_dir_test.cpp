// bisect-step's --save-dir names: every boot of one step under one number, the next step
// under the next, whatever number of boots each took. No QEMU.
#include "host/engine/step_boots.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;

TEST(BisectSaveDir, EveryBootOfAStepUnderOneNumber) {
    const fs::path dir = fs::temp_directory_path() / ("initbench-save-dir-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    EXPECT_EQ(next_step_number(dir.string()), 1u); // not made yet
    fs::create_directories(dir);
    // A first step that decided at 3 boots beside the baseline kernel's 3.
    for (unsigned b = 1; b <= 3; b++)
        for (const char* label : {"step", "baseline"})
            std::ofstream(step_save_path(dir.string(), label, 1, b)) << "{}\n";
    EXPECT_EQ(fs::path(step_save_path(dir.string(), "step", 1, 3)).filename(), "step-001-boot3.json");
    // The next step's 4th boot is its own, not step 1's missing 4th.
    const unsigned next = next_step_number(dir.string());
    EXPECT_EQ(next, 2u);
    EXPECT_EQ(fs::path(step_save_path(dir.string(), "step", next, 4)).filename(), "step-002-boot4.json");
    // A step whose baseline boot came first and failed still took its number.
    std::ofstream(step_save_path(dir.string(), "baseline", 2, 1)) << "{}\n";
    EXPECT_EQ(next_step_number(dir.string()), 3u);
    fs::remove_all(dir);
}

} // namespace
} // namespace initbench
