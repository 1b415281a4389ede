// `initbench pack` (host/image/pack): payload paths, the entries appended, the experiment check.
#include "host/image/pack.h"
#include "host/image/image_settings.h"
#include "host/image/settings_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("pack_test." + std::to_string(::getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
    fs::path file(const std::string& rel, const std::string& text, bool exec = false) {
        fs::create_directories((path / rel).parent_path());
        std::ofstream(path / rel) << text;
        if (exec)
            fs::permissions(path / rel, fs::perms::owner_exec, fs::perm_options::add);
        return path / rel;
    }
};

const CpioEntry* find(const std::vector<CpioEntry>& entries, const std::string& path) {
    auto it =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.path == path; });
    return it == entries.end() ? nullptr : &*it;
}

TEST(Pack, PayloadPathsStayUnderPayload) {
    TempDir t;
    const std::string local = t.file("m.ko", "x").string();
    PayloadAdd add;
    EXPECT_EQ(parse_payload_add(local + ":/payload/mods/m.ko", add), "");
    EXPECT_EQ(add.local, local);
    EXPECT_EQ(add.guest, "/payload/mods/m.ko");
    EXPECT_NE(parse_payload_add(":/payload/x", add), "");
    EXPECT_NE(parse_payload_add(local, add), "");
    for (auto bad : {":/init", ":/payload/", ":/payload/../init", ":/payload//x", ":/payload/a/",
                     ":/payload/experiment.conf"})
        EXPECT_NE(parse_payload_add(local + bad, add), "") << bad;
    EXPECT_NE(parse_payload_add("/no/such/file:/payload/x", add), "");
}

TEST(Pack, EntriesCoverDirectoriesParentsModesAndTheExperiment) {
    TempDir t;
    t.file("tree/bin/tool", "#!/bin/sh\n", true);
    t.file("tree/data.txt", "d");
    const auto conf = t.file("exp.conf", "repeat = 3\n");
    auto entries = payload_entries({{(t.path / "tree").string(), "/payload/kit"}}, conf.string());
    const CpioEntry* tool = find(entries, "payload/kit/bin/tool");
    ASSERT_TRUE(tool);
    EXPECT_EQ(tool->mode, 0755u);
    ASSERT_TRUE(find(entries, "payload/kit/data.txt"));
    EXPECT_EQ(find(entries, "payload/kit/data.txt")->mode, 0644u);
    for (auto dir : {"payload", "payload/kit", "payload/kit/bin"}) {
        ASSERT_TRUE(find(entries, dir)) << dir;
        EXPECT_EQ(find(entries, dir)->kind, CpioEntry::Kind::dir);
    }
    ASSERT_TRUE(find(entries, "payload/experiment.conf"));
    EXPECT_THROW(
        payload_entries({{conf.string(), "/payload/a"}, {conf.string(), "/payload/a"}}, {}),
        std::runtime_error);
}

TEST(Pack, ExperimentFileIsCheckedLikeAProfile) {
    TempDir t;
    const std::string no_image = (t.path / "none.cpio.gz").string(); // profiles unknown
    EXPECT_TRUE(
        check_experiment("cmd = busybox true\nrepeat = 5\nperf = default\n", no_image).empty());
    auto problems = check_experiment("repeat = 0\nfrobnicate = 1\n", no_image);
    ASSERT_EQ(problems.size(), 2u);
    const std::string all = problems[0] + "\n" + problems[1];
    EXPECT_NE(all.find("profile:payload line 1: repeat=0"), std::string::npos) << all;
    EXPECT_NE(all.find("line 2: frobnicate=1: unknown key"), std::string::npos) << all;
    // The loads its phases name, as the init finds them: built-in, or defined in the file.
    EXPECT_TRUE(check_experiment("load.spin = /bin/true\nphases = none,fork,spin,sleep+syscall\n", no_image).empty());
    auto loads = check_experiment("phases = frok\n", no_image);
    ASSERT_EQ(loads.size(), 1u);
    EXPECT_EQ(loads[0].substr(0, loads[0].find(';')),
              "profile:payload: phases=frok: unknown load 'frok' (did you mean 'fork'?)");
    EXPECT_NE(loads[0].find("; loads: cpu, "), std::string::npos) << loads[0];
}

TEST(Pack, ExperimentFileIncludesAreResolvedInTheBaseImage) {
    // The same layers as the init: the file's include names one of the image's profiles,
    // and that profile's own keys are checked too.
    TempDir t;
    const auto base = t.path / "base.cpio.gz";
    write_cpio_gz({{CpioEntry::Kind::dir, "etc/initbench/profiles", 0755, "", 0, 0, {}},
                   {CpioEntry::Kind::file, "etc/initbench/profiles/default.conf", 0644, "", 0, 0, "phases = none\n"},
                   {CpioEntry::Kind::file, "etc/initbench/profiles/broken.conf", 0644, "", 0, 0, "rounds = many\n"}},
                  base.string());
    EXPECT_TRUE(check_experiment("include = default\nrepeat = 2\n", base.string()).empty());
    auto missing = check_experiment("include = nosuch\n", base.string());
    ASSERT_EQ(missing.size(), 1u);
    EXPECT_NE(missing[0].find("nosuch"), std::string::npos) << missing[0];
    auto broken = check_experiment("include = broken\n", base.string());
    ASSERT_EQ(broken.size(), 1u);
    EXPECT_NE(broken[0].find("profile:broken line 1: rounds=many"), std::string::npos) << broken[0];
}

// A load whose program the image would not have is refused at pack time, not found one boot
// later: a bare name along the init's PATH (busybox's applets are links in /bin), a path as
// it is, in the base image or among what the pack adds.
TEST(Pack, ProgramsTheExperimentStartsMustBeInTheImage) {
    const auto missing_programs = [](const std::string& text, const std::string& image,
                                     const std::vector<CpioEntry>& added) {
        return initbench::missing_programs(image_settings(image, {}, text).config, image, added);
    };
    TempDir t;
    const auto base = t.path / "base.cpio.gz";
    write_cpio_gz({{CpioEntry::Kind::dir, "bin", 0755, "", 0, 0, {}},
                   {CpioEntry::Kind::file, "bin/busybox", 0755, "", 0, 0, "ELF"},
                   {CpioEntry::Kind::symlink, "bin/sh", 0777, "busybox", 0, 0, {}}},
                  base.string());
    const std::vector<CpioEntry> added = {{CpioEntry::Kind::file, "payload/bin/hackbench", 0755, "", 0, 0, "x"}};
    EXPECT_EQ(missing_programs("load.a = sh -c 'echo 1'\nload.b = hackbench -g 2\n"
                               "load.b.setup = /payload/bin/hackbench\ncmd = /bin/sh\n",
                               base.string(), added),
              std::vector<std::string>{});
    auto missing = missing_programs("load.hb = hackbnech -g 2 -l {workers}\nbackground = /payload/x/run.sh\n",
                                    base.string(), added);
    ASSERT_EQ(missing.size(), 2u);
    EXPECT_NE(missing[0].find("load.hb=hackbnech -g 2 -l {workers}: hackbnech is not in the image (nor along PATH "
                              "/payload/bin:"),
              std::string::npos) << missing[0];
    EXPECT_NE(missing[0].find("did you mean 'hackbench'?"), std::string::npos) << missing[0];
    EXPECT_EQ(missing[1], "background=/payload/x/run.sh: /payload/x/run.sh is not in the image; initbench pack "
                          "--program or --add puts it there");
    // pack refuses such a file and writes nothing.
    const auto conf = t.file("e.conf", "load.hb = hackbnech\nphases = hb\n");
    const auto out = t.path / "out.cpio.gz";
    try {
        pack_image(base.string(), {}, conf.string(), out.string());
        ADD_FAILURE() << "packed";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("hackbnech is not in the image"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_TRUE(missing_programs("load.x = nosuch\n", (t.path / "none.cpio.gz").string(), {}).empty())
        << "an image that cannot be read is not judged";
}

TEST(Pack, AppendsAGzipMemberAndKeepsTheBaseBytes) {
    TempDir t;
    const auto base = t.path / "base.cpio.gz";
    write_cpio_gz({{CpioEntry::Kind::dir, "payload", 0755, "", 0, 0, {}}}, base.string());
    const auto ko = t.file("m.ko", "module bytes");
    const auto out = t.path / "out.cpio.gz";
    pack_image(base.string(), {{ko.string(), "/payload/m.ko"}}, std::nullopt, out.string());
    std::ifstream b(base, std::ios::binary), o(out, std::ios::binary);
    std::string base_bytes{std::istreambuf_iterator<char>(b), {}},
        out_bytes{std::istreambuf_iterator<char>(o), {}};
    ASSERT_GT(out_bytes.size(), base_bytes.size());
    EXPECT_EQ(out_bytes.substr(0, base_bytes.size()), base_bytes);
    EXPECT_EQ(out_bytes.substr(base_bytes.size(), 2), "\x1f\x8b"); // a second gzip member
    EXPECT_THROW(pack_image(base.string(), {}, std::nullopt, base.string()), std::runtime_error);
}

} // namespace
} // namespace initbench
