// host/boot/delay_loop: the lpj= an x86_64 TCG boot of several CPUs gets, and where its
// HZ comes from.
#include "host/boot/delay_loop.h"

#include <cstring>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace initbench {
namespace {

namespace fs = std::filesystem;

class DelayLoopFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("delay-loop-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string file(const std::string& rel, const std::string& text = "") {
        const fs::path p = dir_ / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p.string();
    }
    static BootSpec two_cpus(const std::string& kernel) {
        BootSpec s;
        s.kernel = kernel;
        s.cpus = 2;
        return s;
    }
    fs::path dir_;
};

TEST(DelayLoop, LpjIsTheTscCyclesPerTick) {
    // Debian's 6.1 under TCG on a 2 GHz host printed "tsc: Detected 1999.999 MHz" and
    // "(lpj=7999996)" for its first CPU, at HZ=250. The host's measurement, a few kHz either
    // side, gives one value: of whole MHz.
    EXPECT_EQ(tsc_lpj(1999999.7, 250), 8000000u);
    EXPECT_EQ(tsc_lpj(2000017.2, 250), 8000000u);
    EXPECT_EQ(tsc_lpj(2000000, 1000), 2000000u);
    EXPECT_EQ(tsc_lpj(2394454, 100), 23940000u);
}

TEST(DelayLoop, HzFromTheConfig) {
    EXPECT_EQ(config_hz("CONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_SMP=y\n"), 250u);
    EXPECT_EQ(config_hz("CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n"), 1000u);
    EXPECT_EQ(config_hz("CONFIG_HZ_250=y\n"), std::nullopt);
    EXPECT_EQ(config_hz("# CONFIG_HZ is not set\n"), std::nullopt);
    EXPECT_EQ(config_hz("CONFIG_HZ=fast\n"), std::nullopt);
    EXPECT_EQ(config_hz("CONFIG_HZ=0\n"), std::nullopt);
}

TEST_F(DelayLoopFiles, ConfigBesideTheKernel) {
    // Debian's and Fedora's /boot.
    const auto config = file("boot/config-6.1.0-57-amd64");
    EXPECT_EQ(config_beside_kernel(file("boot/vmlinuz-6.1.0-57-amd64")), config);
    EXPECT_EQ(config_beside_kernel(file("boot/vmlinuz-6.2.0-1-amd64")), "");
    // A build tree, and its O= directory: bzImage and vmlinux.
    const auto tree_config = file("linux/.config");
    EXPECT_EQ(config_beside_kernel(file("linux/arch/x86/boot/bzImage")), tree_config);
    EXPECT_EQ(config_beside_kernel(file("linux/vmlinux")), tree_config);
    // A kernel copied out of its tree has none.
    EXPECT_EQ(config_beside_kernel(file("kernels/bzImage")), "");
    EXPECT_EQ(config_beside_kernel(file("other/boot/bzImage")), "");
}

TEST_F(DelayLoopFiles, OnlyABootWhoseCpusCalibrateGetsOne) {
    const auto kernel = file("boot/vmlinuz-6.1");
    file("boot/config-6.1", "CONFIG_HZ_250=y\nCONFIG_HZ=250\n");
    BootSpec one = two_cpus(kernel);
    one.cpus = 1;
    EXPECT_TRUE(tcg_delay_loop(one, "").facts.is_null());
    BootSpec arm = two_cpus(kernel);
    arm.arch = "aarch64"; // its delay is the architected timer's: nothing to calibrate
    EXPECT_TRUE(tcg_delay_loop(arm, "").facts.is_null());
    BootSpec given = two_cpus(kernel);
    given.params = {"quiet", "lpj=1000"}; // the user's own value stands
    const auto kept = tcg_delay_loop(given, "");
    EXPECT_TRUE(kept.facts.is_null());
    EXPECT_FALSE(kept.lpj);

    const auto d = tcg_delay_loop(two_cpus(kernel), "");
    std::string why_not;
    if (const auto khz = host_tsc_khz(why_not)) {
        ASSERT_TRUE(d.lpj) << d.facts.dump();
        EXPECT_EQ(d.facts["hz"], 250);
        EXPECT_EQ(d.facts["hz_from"], (dir_ / "boot/config-6.1").string());
        EXPECT_GT(*khz, 1e5); // a TSC of more than 100 MHz
        EXPECT_EQ(*d.lpj, tsc_lpj(d.facts["tsc_khz"].get<double>(), 250));
        EXPECT_NEAR(static_cast<double>(*d.lpj), *khz * 4, *khz * 4 * 0.001);
    } else {
        EXPECT_FALSE(d.lpj);
        EXPECT_EQ(d.facts["why"].get<std::string>().find(why_not), 0u) << d.facts.dump();
    }
    // microvm's kernel is told a TSC frequency: the delay loop follows the same figure.
    BootSpec told = two_cpus(kernel);
    told.model = MachineModel::microvm;
    told.tsc_khz = 3000000;
    const auto follows = tcg_delay_loop(told, "");
    ASSERT_TRUE(follows.lpj) << follows.facts.dump();
    EXPECT_EQ(*follows.lpj, 3000000ULL * 1000 / 250);
    EXPECT_EQ(follows.facts["tsc_khz"], 3000000);
    // --kernel-config wins over the file beside the kernel.
    const auto hz1000 = file("hz1000.config", "CONFIG_HZ=1000\n");
    const auto with_config = tcg_delay_loop(two_cpus(kernel), hz1000);
    ASSERT_TRUE(with_config.lpj);
    EXPECT_EQ(with_config.facts["hz"], 1000);
}

TEST_F(DelayLoopFiles, WithoutHzTheResultSaysWhy) {
    const auto bare = tcg_delay_loop(two_cpus(file("kernels/bzImage")), "");
    EXPECT_FALSE(bare.lpj);
    EXPECT_TRUE(bare.facts["lpj"].is_null());
    EXPECT_NE(bare.facts["why"].get<std::string>().find("--kernel-config"), std::string::npos);
    const auto no_hz = tcg_delay_loop(two_cpus(file("kernels/bzImage")), file("no-hz.config", "CONFIG_SMP=y\n"));
    EXPECT_FALSE(no_hz.lpj);
    EXPECT_NE(no_hz.facts["why"].get<std::string>().find("sets no CONFIG_HZ"), std::string::npos);
    const auto unreadable = tcg_delay_loop(two_cpus(file("kernels/bzImage")), (dir_ / "missing.config").string());
    const std::string why = unreadable.facts["why"];
    EXPECT_NE(why.find("cannot read the kernel config: open " + (dir_ / "missing.config").string() + ": "), std::string::npos)
        << why;
    EXPECT_NE(why.find(std::strerror(ENOENT)), std::string::npos) << why; // the cause, not only the file
}

} // namespace
} // namespace initbench
