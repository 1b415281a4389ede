// `initbench pack --program` (host/image/elf_deps, host/image/pack_programs): this host's own programs
// resolved and laid out, checked against what `ldd` says; the errors, which write nothing.
#include "host/image/elf_deps.h"
#include "host/cli/pack_cli.h"
#include "host/image/pack.h"
#include "host/image/pack_programs.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <map>
#include <regex>
#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kEnv = "/usr/bin/env";
constexpr const char* kBusybox = "/bin/busybox"; // busybox-static: a static program

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("pack_programs_test." + std::to_string(::getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// A copy of `from` with every `find` replaced by `replace` (the same length).
fs::path patched_copy(const fs::path& from, const fs::path& to, const std::string& find,
                      const std::string& replace) {
    std::string bytes = slurp(from);
    for (size_t at; (at = bytes.find(find)) != std::string::npos;)
        bytes.replace(at, find.size(), replace);
    std::ofstream(to, std::ios::binary) << bytes;
    fs::permissions(to, fs::perms::owner_all);
    return to;
}

// A copy of `from` with another e_machine.
fs::path machine_copy(const fs::path& from, const fs::path& to, uint16_t machine) {
    std::string bytes = slurp(from);
    std::memcpy(bytes.data() + offsetof(Elf64_Ehdr, e_machine), &machine, sizeof machine);
    std::ofstream(to, std::ios::binary) << bytes;
    fs::permissions(to, fs::perms::owner_all);
    return to;
}

// `ldd PROGRAM`, the independent account: library name -> its file; the loader under "".
std::map<std::string, std::string> ldd(const std::string& program) {
    std::map<std::string, std::string> out;
    FILE* p = ::popen(("ldd " + program).c_str(), "r");
    char line[4096];
    const std::regex lib(R"(^\s*(\S+) => (/\S+) \(0x)"), loader(R"(^\s*(/\S+) \(0x)");
    while (p && std::fgets(line, sizeof line, p)) {
        std::cmatch m;
        if (std::regex_search(line, m, lib))
            out[m[1]] = m[2];
        else if (std::regex_search(line, m, loader))
            out[""] = m[1];
    }
    if (p)
        ::pclose(p);
    return out;
}

std::map<std::string, const CpioEntry*> by_path(const std::vector<CpioEntry>& files) {
    std::map<std::string, const CpioEntry*> out;
    for (const auto& f : files)
        out[f.path] = &f;
    return out;
}

bool same_file(const std::string& a, const std::string& b) { return fs::equivalent(a, b); }

TEST(PackPrograms, ProgramSpecs) {
    ProgramSpec s;
    EXPECT_EQ(parse_program_spec("/usr/bin/env", s), "");
    EXPECT_EQ(s.local, "/usr/bin/env");
    EXPECT_EQ(s.name, "env");
    EXPECT_EQ(parse_program_spec("/usr/bin/env:myenv", s), "");
    EXPECT_EQ(s.local, "/usr/bin/env");
    EXPECT_EQ(s.name, "myenv");
    for (auto bad : {":env", "/usr/bin/env:", "/usr/bin/env:a b", "/usr/bin/env:.."})
        EXPECT_NE(parse_program_spec(bad, s), "") << bad;
}

TEST(PackPrograms, DynamicProgramWithEveryLibraryLddListsAndTheLoader) {
    const auto expected = ldd(kEnv);
    ASSERT_TRUE(expected.count("libc.so.6")) << "ldd " << kEnv << " lists no libc";
    ASSERT_TRUE(expected.count(""));
    const ProgramPayload p = program_payload({{kEnv, "env"}}, "x86_64");
    const auto files = by_path(p.files);
    ASSERT_TRUE(files.count("payload/libexec/env"));
    EXPECT_EQ(files.at("payload/libexec/env")->source, kEnv);
    EXPECT_EQ(files.at("payload/libexec/env")->mode, 0755u);
    for (const auto& [name, path] : expected) {
        const std::string packed =
            "payload/lib/" + (name.empty() ? fs::path(path).filename().string() : name);
        ASSERT_TRUE(files.count(packed)) << packed;
        EXPECT_TRUE(same_file(files.at(packed)->source, path)) << files.at(packed)->source << " " << path;
    }
    // The program, its wrapper, the libraries and the loader: nothing else.
    EXPECT_EQ(p.files.size(), 2 + expected.size());
    const std::string loader = fs::path(expected.at("")).filename();
    ASSERT_TRUE(files.count("payload/bin/env"));
    const CpioEntry& wrapper = *files.at("payload/bin/env");
    ASSERT_TRUE(wrapper.contents);
    EXPECT_EQ(*wrapper.contents, program_wrapper("env", loader));
    EXPECT_NE(wrapper.contents->find("exec /payload/lib/" + loader +
                                     " --library-path /payload/lib /payload/libexec/env \"$@\""),
              std::string::npos)
        << *wrapper.contents;
    EXPECT_TRUE(wrapper.contents->starts_with("#!/bin/sh\n"));
    ASSERT_EQ(p.sizes.size(), 1u);
    EXPECT_TRUE(p.sizes[0].dynamic);
    EXPECT_EQ(p.sizes[0].program_bytes, fs::file_size(kEnv));
    EXPECT_EQ(p.sizes[0].libraries, expected.size());
    EXPECT_GT(p.sizes[0].library_bytes, fs::file_size(expected.at("libc.so.6")));
}

TEST(PackPrograms, ALibrarySeveralProgramsNeedIsPackedOnce) {
    const ProgramPayload one = program_payload({{kEnv, "env"}}, "x86_64");
    const ProgramPayload two = program_payload({{kEnv, "env"}, {kEnv, "env2"}, {"/bin/ls", "ls"}}, "x86_64");
    auto count = [&](const std::string& path) {
        return std::count_if(two.files.begin(), two.files.end(), [&](const auto& f) { return f.path == path; });
    };
    EXPECT_EQ(count("payload/lib/libc.so.6"), 1);
    EXPECT_EQ(count("payload/lib/ld-linux-x86-64.so.2"), 1);
    EXPECT_EQ(count("payload/libexec/env2"), 1);
    EXPECT_EQ(count("payload/bin/ls"), 1);
    ASSERT_EQ(two.sizes.size(), 3u);
    EXPECT_EQ(two.sizes[1].library_bytes, one.sizes[0].library_bytes); // each counts libc
    EXPECT_LT(two.total_bytes, one.total_bytes * 2 + two.sizes[2].program_bytes + two.sizes[2].library_bytes);
    // Packed as a whole: the entries are unique.
    EXPECT_NO_THROW(payload_entries({}, std::nullopt, two.files));
    EXPECT_THROW(program_payload({{kEnv, "env"}, {"/bin/ls", "env"}}, "x86_64"), std::runtime_error);
}

TEST(PackPrograms, StaticProgramIsPackedAsItIs) {
    if (!fs::exists(kBusybox))
        GTEST_SKIP() << "no " << kBusybox << " (busybox-static)";
    const ElfFile elf = read_elf(kBusybox);
    ASSERT_TRUE(elf.interp.empty()) << kBusybox << " is not static here";
    const ProgramPayload p = program_payload({{kBusybox, "bb"}}, "x86_64");
    ASSERT_EQ(p.files.size(), 1u);
    EXPECT_EQ(p.files[0].path, "payload/bin/bb");
    EXPECT_EQ(p.files[0].source, kBusybox);
    EXPECT_FALSE(p.files[0].contents);
    EXPECT_FALSE(p.sizes[0].dynamic);
    EXPECT_EQ(p.total_bytes, fs::file_size(kBusybox));
}

void expect_error(const std::vector<ProgramSpec>& specs, const std::string& arch, const std::string& words) {
    try {
        program_payload(specs, arch);
        ADD_FAILURE() << "no error; expected one with: " << words;
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

TEST(PackPrograms, ClearErrors) {
    TempDir t;
    expect_error({{(t.path / "nothing").string(), "x"}}, "x86_64", "nothing: no such file");
    std::ofstream(t.path / "script.sh") << "#!/bin/sh\necho hello\n";
    expect_error({{(t.path / "script.sh").string(), "x"}}, "x86_64",
                 "script.sh: not an ELF file but a script for /bin/sh: pack the interpreter with --program "
                 "/bin/sh and the script with --data, and run it as /payload/bin/sh SCRIPT");
    std::ofstream(t.path / "data.txt") << "words\n";
    expect_error({{(t.path / "data.txt").string(), "x"}}, "x86_64", "data.txt: not an ELF file");
    const auto arm = machine_copy(kEnv, t.path / "arm-env", EM_AARCH64);
    expect_error({{arm.string(), "x"}}, "x86_64", "arm-env: built for aarch64; the image is x86_64");
    expect_error({{kEnv, "x"}}, "aarch64", "built for x86_64; the image is aarch64");
    // libc.so.6 renamed in the string table: a library that is nowhere.
    const auto lost = patched_copy(kEnv, t.path / "lost-env", std::string("libc.so.6\0", 10),
                                   std::string("libq.so.6\0", 10));
    expect_error({{lost.string(), "x"}}, "x86_64", "library libq.so.6 (needed by " + lost.string() + ") not found");
}

// `initbench pack` as the command line runs it: its exit code and its output file.
int pack_command(std::vector<std::string> args) {
    CLI::App app;
    add_pack_command(app);
    args.insert(args.begin(), "pack");
    std::reverse(args.begin(), args.end()); // CLI11 takes a vector of arguments in reverse
    try {
        app.parse(args);
    } catch (const CLI::RuntimeError& e) {
        return e.get_exit_code();
    } catch (const CLI::ParseError&) {
        return 2;
    }
    return -1;
}

TEST(PackPrograms, TheImageArchitectureAndNothingWrittenOnAnError) {
    TempDir t;
    // A base image whose /init is an x86_64 ELF, as the built image's is.
    const auto base = t.path / "base.cpio.gz";
    CpioEntry init;
    init.path = "init";
    init.mode = 0755;
    init.source = kEnv;
    write_cpio_gz({init}, base.string());
    EXPECT_EQ(image_arch(base.string()), "x86_64");
    const auto arm_init = machine_copy(kEnv, t.path / "arm-init", EM_AARCH64);
    init.source = arm_init.string();
    write_cpio_gz({init}, (t.path / "arm.cpio.gz").string());
    EXPECT_EQ(image_arch((t.path / "arm.cpio.gz").string()), "aarch64");
    EXPECT_EQ(image_arch((t.path / "none").string()), std::nullopt);

    const auto out = t.path / "out.cpio.gz";
    std::ofstream(t.path / "client.txt") << "data\n";
    EXPECT_EQ(pack_command({"--image", base.string(), "--program", kEnv, "--program", std::string(kEnv) + ":env2",
                            "--data", (t.path / "client.txt").string() + ":/payload/share/client.txt", "-o",
                            out.string()}),
              0);
    EXPECT_TRUE(fs::exists(out));
    fs::remove(out);
    std::ofstream(t.path / "text") << "not a program\n";
    for (const auto& bad : {arm_init.string(), (t.path / "text").string(), (t.path / "missing").string()}) {
        EXPECT_EQ(pack_command({"--image", base.string(), "--program", bad, "-o", out.string()}), 1) << bad;
        EXPECT_FALSE(fs::exists(out)) << bad;
    }
    // An aarch64 image refuses this host's program; --arch must agree with the image.
    EXPECT_EQ(pack_command({"--image", (t.path / "arm.cpio.gz").string(), "--program", kEnv, "-o", out.string()}), 1);
    EXPECT_EQ(pack_command({"--image", base.string(), "--arch", "aarch64", "--program", kEnv, "-o", out.string()}), 1);
    EXPECT_FALSE(fs::exists(out));
    // No temporary file is left either.
    for (const auto& item : fs::directory_iterator(t.path))
        EXPECT_FALSE(item.path().string().ends_with(".tmp")) << item.path();
}

TEST(PackPrograms, ASysrootIsTheGuestsRoot) {
    TempDir t;
    const auto root = t.path / "root";
    const auto expected = ldd(kEnv);
    const fs::path multiarch = root / "usr/lib/x86_64-linux-gnu";
    fs::create_directories(multiarch);
    fs::create_directories(root / "lib64");
    // Merged /usr and an absolute link, as in Debian's root: both must stay in the sysroot.
    fs::create_directory_symlink("usr/lib", root / "lib");
    for (const auto& [_, path] : expected)
        fs::copy_file(path, multiarch / fs::path(path).filename());
    fs::create_symlink("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", root / "lib64/ld-linux-x86-64.so.2");
    EXPECT_EQ(path_in_root(root.string(), "/lib64/ld-linux-x86-64.so.2"),
              (multiarch / "ld-linux-x86-64.so.2").string());
    const ProgramDeps deps = resolve_program(kEnv, "x86_64", root.string());
    ASSERT_TRUE(deps.loader);
    EXPECT_EQ(deps.loader->path, (multiarch / "ld-linux-x86-64.so.2").string());
    ASSERT_FALSE(deps.libraries.empty());
    for (const auto& lib : deps.libraries)
        EXPECT_TRUE(lib.path.starts_with(root.string())) << lib.path;
    // Without the library in the sysroot, the host's is not used.
    fs::remove(multiarch / "libc.so.6");
    EXPECT_THROW(resolve_program(kEnv, "x86_64", root.string()), std::runtime_error);
}

// Builds lib/b/libb.so, lib/a/liba.so (needs libb, has no path of its own) and bin/prog
// (needs liba, with the search path $ORIGIN/../lib/a:$ORIGIN/../lib/b as DT_RPATH or, with
// `runpath`, as DT_RUNPATH). The host's C compiler builds them; false when it cannot.
bool build_search_path_tree(const fs::path& dir, bool runpath) {
    fs::create_directories(dir / "lib/a");
    fs::create_directories(dir / "lib/b");
    fs::create_directories(dir / "bin");
    std::ofstream(dir / "b.c") << "int b(void) { return 1; }\n";
    std::ofstream(dir / "a.c") << "int b(void);\nint a(void) { return b(); }\n";
    std::ofstream(dir / "prog.c") << "int a(void);\nint main(void) { return a(); }\n";
    const std::string d = dir.string();
    const std::string tags = runpath ? "--enable-new-dtags" : "--disable-new-dtags";
    const std::string commands[] = {
        "cc -shared -fPIC -o " + d + "/lib/b/libb.so " + d + "/b.c",
        "cc -shared -fPIC -o " + d + "/lib/a/liba.so " + d + "/a.c -L" + d + "/lib/b -lb",
        "cc -o " + d + "/bin/prog " + d + "/prog.c -L" + d + "/lib/a -la -Wl,-rpath-link," + d +
            "/lib/b -Wl," + tags + " '-Wl,-rpath,$ORIGIN/../lib/a:$ORIGIN/../lib/b'",
    };
    for (const auto& c : commands)
        if (std::system((c + " 2>&1").c_str()) != 0)
            return false;
    return true;
}

// DT_RPATH is searched for the libraries of the libraries too; DT_RUNPATH only for the
// object's own (ld.so(8)): ldd, the independent account, says the same.
TEST(PackPrograms, RpathIsInheritedRunpathIsNot) {
    TempDir t;
    ASSERT_TRUE(build_search_path_tree(t.path / "rpath", false)) << "cc cannot build the test tree";
    const std::string prog = (t.path / "rpath/bin/prog").string();
    const auto expected = ldd(prog);
    ASSERT_TRUE(expected.count("libb.so")) << "ldd " << prog << " does not find libb.so";
    const ProgramDeps deps = resolve_program(prog, "x86_64");
    std::map<std::string, std::string> found;
    for (const auto& lib : deps.libraries)
        found[lib.name] = lib.path;
    for (const char* name : {"liba.so", "libb.so"}) {
        ASSERT_TRUE(found.count(name)) << name;
        EXPECT_TRUE(same_file(found.at(name), expected.at(name))) << found.at(name);
    }
    EXPECT_TRUE(same_file(found.at("libb.so"), (t.path / "rpath/lib/b/libb.so").string()));

    ASSERT_TRUE(build_search_path_tree(t.path / "runpath", true));
    const std::string prog2 = (t.path / "runpath/bin/prog").string();
    EXPECT_EQ(ldd(prog2).count("libb.so"), 0u) << "ldd found libb.so through DT_RUNPATH";
    expect_error({{prog2, "x"}}, "x86_64",
                 "library libb.so (needed by " + (t.path / "runpath/bin/../lib/a/liba.so").string() +
                     ") not found");
}

} // namespace
} // namespace initbench
