// Unit tests of the QEMU command line the host builds (the machine, the accelerator, the
// clock, the kernel parameters) and of the boot options every booting subcommand shares.
#include "host/base/process.h"
#include "host/boot/qemu.h"
#include "host/engine/boot_plan.h"
#include "host/image/image_settings.h"

#include <algorithm>

#include "tests/unit/temp_dir.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {


// ---- qemu: the argument vector -----------------------------------------------------

// The element after `flag`, or "" when the flag is absent or last.
std::string arg_after(const std::vector<std::string>& argv, const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it == argv.end() || it + 1 == argv.end() ? "" : *(it + 1);
}

bool has_pair(const std::vector<std::string>& argv, const std::string& a, const std::string& b) {
    for (size_t i = 0; i + 1 < argv.size(); i++)
        if (argv[i] == a && argv[i + 1] == b)
            return true;
    return false;
}

bool has(const std::vector<std::string>& argv, const std::string& a) {
    return std::find(argv.begin(), argv.end(), a) != argv.end();
}

BootSpec spec(const std::string& arch) {
    BootSpec s;
    s.arch = arch;
    s.kernel = "/boot/vmlinuz";
    s.image = "/tmp/initbench.cpio.gz";
    s.cpus = 2;
    s.memory_mb = 768;
    return s;
}

// Under TCG both architectures get `-cpu max`, the kernel and image, and their own serial
// console; only arm64 names a machine (virt), x86_64 takes QEMU's default.
TEST(QemuArgv, TcgOnEachArchitecture) {
    struct Arch {
        const char *name, *console, *other_console, *machine;
    };
    for (const Arch& arch : {Arch{"x86_64", "ttyS0", "ttyAMA0", nullptr}, Arch{"aarch64", "ttyAMA0", "ttyS0", "virt"}}) {
        SCOPED_TRACE(arch.name);
        const auto argv = qemu_argv(spec(arch.name));
        ASSERT_FALSE(argv.empty());
        EXPECT_EQ(argv[0], std::string("qemu-system-") + arch.name);
        EXPECT_TRUE(has_pair(argv, "-accel", "tcg"));
        EXPECT_TRUE(has_pair(argv, "-cpu", "max"));
        EXPECT_TRUE(has(argv, "-no-reboot"));
        EXPECT_FALSE(has(argv, "-icount"));
        EXPECT_EQ(arg_after(argv, "-machine"), arch.machine ? arch.machine : "");
        EXPECT_EQ(arg_after(argv, "-kernel"), "/boot/vmlinuz");
        EXPECT_EQ(arg_after(argv, "-initrd"), "/tmp/initbench.cpio.gz");
        EXPECT_EQ(arg_after(argv, "-smp"), "2");
        EXPECT_EQ(arg_after(argv, "-m"), "768");
        EXPECT_EQ(arg_after(argv, "-serial"), "stdio");
        const std::string append = arg_after(argv, "-append");
        EXPECT_TRUE(contains(append, std::string("console=") + arch.console));
        EXPECT_FALSE(contains(append, arch.other_console));
        EXPECT_TRUE(contains(" " + append + " ", " panic=-1 "));
        EXPECT_EQ(serial_console(arch.name), arch.console);
    }
}

TEST(QemuArgv, Kvm) {
    for (const char* arch : {"x86_64", "aarch64"}) {
        SCOPED_TRACE(arch);
        BootSpec s = spec(arch);
        s.accel = Accel::kvm;
        const auto argv = qemu_argv(s);
        EXPECT_TRUE(has_pair(argv, "-accel", "kvm"));
        EXPECT_TRUE(has_pair(argv, "-cpu", "host"));
        EXPECT_FALSE(has(argv, "tcg"));
        EXPECT_FALSE(has(argv, "max"));
    }
}

TEST(QemuArgv, MachineTopologyAndManyCpus) {
    BootSpec s = spec("x86_64");
    s.cpus = 16;
    s.topology = Topology{2, 4, 2};
    EXPECT_EQ(arg_after(qemu_argv(s), "-smp"), "16,sockets=2,cores=4,threads=2");
    // One host thread for as many vCPUs as host CPUs or a few more, a thread each for many,
    // or for fewer than the host has.
    s.host_cpus = 2;
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg,thread=single"));
    s.cpus = 128;
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg"));
    s.cpus = 2;
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg,thread=single"));
    s.host_cpus = 4;
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg"));
    s.cpus = 1;
    s.host_cpus = 1;
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg"));
    s.cpus = 18;
    s.host_cpus = 0; // unknown
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg"));
    // GICv2 stops at 8 CPUs: more need GICv3 on arm64's virt machine.
    BootSpec arm = spec("aarch64");
    EXPECT_TRUE(has_pair(qemu_argv(arm), "-machine", "virt"));
    arm.cpus = 9;
    EXPECT_TRUE(has_pair(qemu_argv(arm), "-machine", "virt,gic-version=3"));
    EXPECT_EQ(max_cpus("x86_64"), 255u);
    EXPECT_EQ(max_cpus("aarch64"), 512u);
}

TEST(MachineChoice, CommandLineBeatsTheProfileWhichBeatsTheDefault) {
    const auto profile = [](std::string_view name) -> std::optional<std::string> {
        if (name == "big")
            return std::string("machine.cpus = 16\nmachine.memory_mb = 4096\nmachine.topology = 2:4:2\n");
        return name == "default" ? std::optional<std::string>("") : std::nullopt;
    };
    const Config big = parse_config("initbench.profile=big", profile).config;
    MachineChoice m = choose_machine(big, std::nullopt, std::nullopt);
    EXPECT_EQ(m.cpus, 16u);
    EXPECT_EQ(m.cpus_source, "profile:big");
    EXPECT_EQ(m.memory_mb, 4096u);
    ASSERT_TRUE(m.topology);
    EXPECT_EQ(m.topology->text(), "2:4:2");

    m = choose_machine(big, 4u, 2048u);
    EXPECT_EQ(m.cpus, 4u);
    EXPECT_EQ(m.cpus_source, "--cpus");
    EXPECT_EQ(m.memory_source, "--memory");
    EXPECT_FALSE(m.topology) << "2:4:2 is not 4 CPUs";
    EXPECT_NE(m.topology_note.find("flat -smp 4"), std::string::npos) << m.topology_note;

    m = choose_machine(parse_config("", profile).config, std::nullopt, std::nullopt);
    EXPECT_EQ(m.cpus, 1u);
    EXPECT_EQ(m.memory_mb, 1024u);
    EXPECT_EQ(m.cpus_source, "default");
    const auto facts = machine_facts(choose_machine(big, std::nullopt, std::nullopt));
    EXPECT_EQ(facts["cpus_source"], "profile:big");
    EXPECT_EQ(facts["topology"], "2:4:2");
}

TEST(QemuArgv, Icount) {
    BootSpec s = spec("x86_64");
    s.icount = true;
    const auto argv = qemu_argv(s);
    EXPECT_TRUE(has_pair(argv, "-accel", "tcg"));
    EXPECT_TRUE(has_pair(argv, "-icount", "shift=4,align=off,sleep=off"));
    EXPECT_TRUE(has_pair(argv, "-cpu", "max"));
}

TEST(QemuArgv, ParamsArriveUnchangedInOneElement) {
    const std::vector<std::string> params = {"initbench.profile=smoke",
                                             "initbench.cmd=echo \"a b\"; ls 'x y' $HOME `id` | cat",
                                             "quiet"};
    BootSpec plain = spec("x86_64");
    BootSpec s = plain;
    s.params = params;
    s.kernel = "/path with spaces/bzImage";
    const auto argv = qemu_argv(s);
    EXPECT_EQ(argv.size(), qemu_argv(plain).size()); // no extra elements: nothing was split
    EXPECT_EQ(arg_after(argv, "-kernel"), "/path with spaces/bzImage");
    const std::string append = arg_after(argv, "-append");
    std::string tail;
    for (const auto& p : params)
        tail += " " + p;
    ASSERT_GE(append.size(), tail.size());
    EXPECT_EQ(append.substr(append.size() - tail.size()), tail);
    EXPECT_EQ(kernel_cmdline(s), append);
}

// `run -- initbench.module.params="a=1 b=2"`: the shell hands run one argument with spaces,
// and the guest must get it as one parameter, not as "a=1" and a stray "b=2".
TEST(QemuArgv, AParameterWithSpacesIsQuoted) {
    EXPECT_EQ(cmdline_word("initbench.module.params=a=1 b=2"), "initbench.module.params=\"a=1 b=2\"");
    EXPECT_EQ(cmdline_word("initbench.cmd=echo\thi"), "initbench.cmd=\"echo\thi\"");
    EXPECT_EQ(cmdline_word("two words"), "\"two words\"");
    EXPECT_EQ(cmdline_word("initbench.phases=cpu,fork"), "initbench.phases=cpu,fork");
    EXPECT_EQ(cmdline_word("initbench.cmd=\"a b\""), "initbench.cmd=\"a b\"");
    BootSpec s = spec("x86_64");
    s.params = {"initbench.module.params=x=1 y=2", "quiet"};
    EXPECT_TRUE(kernel_cmdline(s).ends_with(" initbench.module.params=\"x=1 y=2\" quiet"));
}

// The delay loop's value (host/boot/delay_loop.h) comes last, as one more kernel parameter.
TEST(QemuArgv, LpjFollowsTheParameters) {
    BootSpec s = spec("x86_64");
    s.params = {"quiet"};
    EXPECT_FALSE(contains(kernel_cmdline(s), "lpj="));
    s.lpj = 7999996;
    EXPECT_TRUE(kernel_cmdline(s).ends_with(" quiet lpj=7999996"));
}

// microvm has no timer to calibrate the TSC against: its kernel is told the frequency, before
// the user's parameters so that theirs wins.
TEST(QemuArgv, MicrovmIsToldItsTscFrequency) {
    BootSpec s = spec("x86_64");
    s.model = MachineModel::microvm;
    s.tsc_khz = 2096033;
    s.params = {"quiet"};
    const auto argv = qemu_argv(s);
    EXPECT_TRUE(has_pair(argv, "-machine", "microvm"));
    EXPECT_TRUE(contains(arg_after(argv, "-append"), "panic=-1 tsc_early_khz=2096033 quiet"));
    EXPECT_EQ(machine_model_name(s), "microvm");
    EXPECT_EQ(machine_model_name(spec("x86_64")), "pc");
    EXPECT_EQ(machine_model_name(spec("aarch64")), "virt");
}

TEST(BootOptions, MicrovmTscFromTheClockOrTheHost) {
    BootOptions o;
    o.machine = "microvm";
    BootSpec icount;
    icount.icount = true;
    ASSERT_TRUE(choose_machine_model(o, icount).ok());
    EXPECT_EQ(icount.model, MachineModel::microvm);
    EXPECT_EQ(icount.tsc_khz, 1000000UL); // a tick per nanosecond of virtual time
    BootSpec wall;
    if (auto st = choose_machine_model(o, wall); st.ok())
        EXPECT_GT(*wall.tsc_khz, 100000UL) << "the host's TSC, in kHz"; // above 100 MHz
    else
        EXPECT_NE(st.error().message().find("TSC frequency is not known"), std::string::npos) << st.error().message();
    o.arch = "aarch64";
    auto refused = choose_machine_model(o, wall);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message().find("boots virt"), std::string::npos);
    BootSpec pc;
    o.machine = "pc";
    ASSERT_TRUE(choose_machine_model(o, pc).ok());
    EXPECT_EQ(pc.model, MachineModel::pc);
    EXPECT_FALSE(pc.tsc_khz);
}

} // namespace
} // namespace initbench
