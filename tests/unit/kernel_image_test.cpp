// PVH boot (host/boot/kernel_image, host/boot/decompress): a fake vmlinux with the PVH and build-id
// notes, compressed by each tool the way the kernel's Makefile does, inside a synthetic
// bzImage; damaged images; the vmlinux cache, also under concurrent extraction.
#include "host/boot/kernel_image.h"

#include "host/base/hash.h"

#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <chrono>
#include <gtest/gtest.h>
#include <iterator>
#include <regex>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kEntry = 0x1000480;

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("kernel_image_test." + std::to_string(::getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
    std::string cache() const { return (path / "cache").string(); }
};

void put32(Bytes& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; i++)
        b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void append32(Bytes& b, std::uint32_t v) {
    b.resize(b.size() + 4);
    put32(b, b.size() - 4, v);
}

Bytes build_id(std::uint32_t seed) {
    Bytes id(20);
    for (std::size_t i = 0; i < id.size(); i++)
        id[i] = static_cast<std::uint8_t>(seed * 31 + i * 7);
    return id;
}

std::string hex_of(const Bytes& b) {
    std::string s;
    char two[3];
    for (auto c : b) {
        std::snprintf(two, sizeof two, "%02x", c);
        s += two;
    }
    return s;
}

void note(Bytes& out, const std::string& name, std::uint32_t type, const Bytes& desc) {
    append32(out, static_cast<std::uint32_t>(name.size() + 1));
    append32(out, static_cast<std::uint32_t>(desc.size()));
    append32(out, type);
    out.insert(out.end(), name.begin(), name.end());
    out.push_back(0);
    out.resize((out.size() + 3) / 4 * 4);
    out.insert(out.end(), desc.begin(), desc.end());
    out.resize((out.size() + 3) / 4 * 4);
}

// An ELF64 x86_64 header, one PT_NOTE segment, then ~700 KiB that is partly incompressible
// (so lzop stores some blocks as they are) and partly text.
Bytes fake_vmlinux(bool pvh, std::uint32_t seed, std::uint16_t machine = EM_X86_64) {
    Bytes notes;
    if (pvh) {
        Bytes entry(8);
        put32(entry, 0, static_cast<std::uint32_t>(kEntry));
        note(notes, "Xen", 18, entry);
    }
    note(notes, "GNU", NT_GNU_BUILD_ID, build_id(seed));
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = machine;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    Elf64_Phdr ph{};
    ph.p_type = PT_NOTE;
    ph.p_offset = sizeof eh + sizeof ph;
    ph.p_filesz = notes.size();
    ph.p_align = 4;
    Bytes out(sizeof eh + sizeof ph + notes.size());
    std::memcpy(out.data(), &eh, sizeof eh);
    std::memcpy(out.data() + sizeof eh, &ph, sizeof ph);
    std::copy(notes.begin(), notes.end(), out.begin() + sizeof eh + sizeof ph);
    std::uint32_t x = seed * 2654435761u + 1;
    for (std::size_t i = 0; i < (700u << 10); i++) {
        x = x * 1103515245 + 12345;
        out.push_back((i >> 16) % 3 == 0 ? static_cast<std::uint8_t>(x >> 16) : "initbench vmlinux "[i % 18]);
    }
    return out;
}

void write_file(const fs::path& p, const Bytes& b) {
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

Bytes read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
}

// As the kernel's Makefile.lib does: the compressor as a filter, then the size appended.
Bytes compress(const std::string& command, const Bytes& data, const fs::path& dir) {
    write_file(dir / "in", data);
    const std::string line = command + " < '" + (dir / "in").string() + "' > '" + (dir / "out").string() + "'";
    EXPECT_EQ(std::system(line.c_str()), 0) << line;
    Bytes out = read_file(dir / "out");
    append32(out, static_cast<std::uint32_t>(data.size()));
    return out;
}

// Real-mode setup sectors with the header, then protected-mode "code" around the payload.
Bytes bzimage(const Bytes& payload, std::uint8_t setup_sects = 3) {
    const std::size_t setup = ((setup_sects ? setup_sects : 4) + 1) * 512;
    const std::uint32_t offset = 0x180;
    Bytes out(setup + offset, 0x90);
    out[0x1f1] = setup_sects;
    std::memcpy(&out[0x202], "HdrS", 4);
    out[0x206] = 0x0f; // protocol 2.15
    out[0x207] = 0x02;
    put32(out, 0x248, offset);
    put32(out, 0x24c, static_cast<std::uint32_t>(payload.size()));
    out.insert(out.end(), payload.begin(), payload.end());
    out.resize(out.size() + 0x40, 0xcc);
    out.resize(setup + (out.size() - setup + 15) / 16 * 16);
    put32(out, 0x1f4, static_cast<std::uint32_t>((out.size() - setup) / 16));
    return out;
}

struct Tool {
    std::string name, command;
};

const std::vector<Tool> kTools = {
    {"gzip", "gzip -n -f -9"},
    {"bzip2", "bzip2 -9"},
    {"lzma", "lzma -9"},
    {"xz", "xz --check=crc32 --x86 --lzma2=,dict=32MiB"},
    {"lzo", "lzop -9"},
    {"lz4", "lz4 -l -9 -c"},
    {"zstd", "zstd -22 --ultra -c"},
};

// The compressor's program is on PATH (scripts/install-deps.sh installs them all).
bool installed(const Tool& tool) {
    const std::string program = tool.command.substr(0, tool.command.find(' '));
    return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

Bytes gzip_bzimage(const Bytes& elf, const fs::path& dir) {
    return bzimage(compress("gzip -n -f -9", elf, dir));
}

std::string stored_bzimage(const TempDir& t, const Bytes& image, const std::string& name = "bzImage") {
    write_file(t.path / name, image);
    return (t.path / name).string();
}

TEST(KernelImage, EveryKernelCompressionGivesBackTheVmlinux) {
    TempDir t;
    const Bytes elf = fake_vmlinux(true, 1);
    for (const auto& tool : kTools) {
        SCOPED_TRACE(tool.name);
        if (!installed(tool))
            GTEST_SKIP() << tool.command << ": not installed";
        const Bytes payload = compress(tool.command, elf, t.path);
        auto c = identify_compression(payload);
        ASSERT_TRUE(c);
        EXPECT_EQ(compression_name(*c), tool.name);
        const std::string path = stored_bzimage(t, bzimage(payload), "bzImage-" + tool.name);
        auto k = pvh_kernel(path, sha256_file(path), t.cache());
        ASSERT_TRUE(k) << k.error().message();
        ASSERT_FALSE(k.value().path.empty()) << k.value().reason;
        EXPECT_EQ(read_file(k.value().path), elf);
        EXPECT_TRUE(k.value().notes.pvh);
        EXPECT_EQ(k.value().notes.pvh_entry, kEntry);
        EXPECT_EQ(k.value().notes.build_id, hex_of(build_id(1)));
        EXPECT_EQ(k.value().compression, tool.name);
        EXPECT_TRUE(k.value().extracted);
    }
}

TEST(KernelImage, SetupHeaderFieldsAndZeroSetupSectors) {
    TempDir t;
    const Bytes payload = compress("gzip -n -f -9", fake_vmlinux(true, 2), t.path);
    for (std::uint8_t sects : {0, 1, 3}) {
        const Bytes image = bzimage(payload, sects);
        auto h = parse_setup_header(image);
        ASSERT_TRUE(h) << h.error().message();
        EXPECT_EQ(h.value().protocol, 0x20fu);
        EXPECT_EQ(h.value().setup_bytes, ((sects ? sects : 4) + 1) * 512u);
        EXPECT_EQ(h.value().payload_length, payload.size());
        EXPECT_TRUE(std::equal(payload.begin(), payload.end(), image.begin() + static_cast<long>(h.value().payload_offset)));
    }
}

TEST(KernelImage, BootChoiceRecordsPvhAndItsFacts) {
    TempDir t;
    const std::string path = stored_bzimage(t, gzip_bzimage(fake_vmlinux(true, 3), t.path));
    auto b = choose_kernel_boot(path, "x86_64", BootMode::auto_, t.cache());
    ASSERT_TRUE(b) << b.error().message();
    EXPECT_EQ(b.value().protocol, "pvh");
    EXPECT_EQ(b.value().boot_path, (fs::path(t.cache()) / "vmlinux" / sha256_file(path)).string());
    auto facts = b.value().facts();
    EXPECT_EQ(facts["protocol"], "pvh");
    EXPECT_EQ(facts["kernel_sha256"], sha256_file(path));
    EXPECT_EQ(facts["vmlinux_build_id"], hex_of(build_id(3)));
    EXPECT_EQ(facts["vmlinux_path"], b.value().boot_path);
    EXPECT_FALSE(facts.contains("reason"));

    auto forced = choose_kernel_boot(path, "x86_64", BootMode::bzimage, t.cache());
    ASSERT_TRUE(forced);
    EXPECT_EQ(forced.value().protocol, "bzimage");
    EXPECT_EQ(forced.value().boot_path, path);

    auto arm = choose_kernel_boot(path, "aarch64", BootMode::auto_, t.cache());
    ASSERT_TRUE(arm);
    EXPECT_EQ(arm.value().protocol, "image");
    EXPECT_EQ(arm.value().boot_path, path);
    EXPECT_FALSE(choose_kernel_boot(path, "aarch64", BootMode::pvh, t.cache()));
}

TEST(KernelImage, VmlinuxWithTheNoteBootsAsItIs) {
    TempDir t;
    const Bytes elf = fake_vmlinux(true, 4);
    write_file(t.path / "vmlinux", elf);
    auto b = choose_kernel_boot((t.path / "vmlinux").string(), "x86_64", BootMode::pvh, t.cache());
    ASSERT_TRUE(b) << b.error().message();
    EXPECT_EQ(b.value().protocol, "pvh");
    EXPECT_EQ(b.value().boot_path, (t.path / "vmlinux").string());
    EXPECT_EQ(b.value().pvh.notes.build_id, hex_of(build_id(4)));
    EXPECT_FALSE(fs::exists(t.cache()));
}

TEST(KernelImage, WithoutThePvhNoteAutoFallsBackAndPvhFails) {
    TempDir t;
    const std::string path = stored_bzimage(t, gzip_bzimage(fake_vmlinux(false, 5), t.path));
    auto b = choose_kernel_boot(path, "x86_64", BootMode::auto_, t.cache());
    ASSERT_TRUE(b) << b.error().message();
    EXPECT_EQ(b.value().protocol, "bzimage");
    EXPECT_EQ(b.value().boot_path, path);
    EXPECT_NE(b.value().reason.find("no PVH entry note"), std::string::npos) << b.value().reason;
    EXPECT_EQ(b.value().facts()["reason"], b.value().reason);
    auto pvh = choose_kernel_boot(path, "x86_64", BootMode::pvh, t.cache());
    ASSERT_FALSE(pvh);
    EXPECT_NE(pvh.error().message().find("no PVH entry note"), std::string::npos) << pvh.error().message();

    // Nor is an arm64 ELF or a file that is no kernel at all booted through PVH.
    write_file(t.path / "arm", fake_vmlinux(true, 5, EM_AARCH64));
    auto arm = choose_kernel_boot((t.path / "arm").string(), "x86_64", BootMode::auto_, t.cache());
    ASSERT_TRUE(arm);
    EXPECT_NE(arm.value().reason.find("not x86_64"), std::string::npos) << arm.value().reason;
    write_file(t.path / "junk", Bytes(4096, 7));
    auto junk = choose_kernel_boot((t.path / "junk").string(), "x86_64", BootMode::auto_, t.cache());
    ASSERT_TRUE(junk);
    EXPECT_EQ(junk.value().protocol, "bzimage");
    EXPECT_NE(junk.value().reason.find("HdrS"), std::string::npos) << junk.value().reason;
}

TEST(KernelImage, TruncatedBzImageIsAnError) {
    TempDir t;
    const Bytes image = gzip_bzimage(fake_vmlinux(true, 6), t.path);
    for (std::size_t cut : {std::size_t(0x230), image.size() / 2, image.size() - 8}) {
        const std::string path = stored_bzimage(t, Bytes(image.begin(), image.begin() + static_cast<long>(cut)));
        for (auto mode : {BootMode::auto_, BootMode::bzimage}) {
            auto b = choose_kernel_boot(path, "x86_64", mode, t.cache());
            ASSERT_FALSE(b) << cut;
            EXPECT_NE(b.error().message().find("cut short"), std::string::npos) << b.error().message();
        }
    }
}

TEST(KernelImage, PayloadBeyondTheFileIsAnError) {
    TempDir t;
    Bytes image = gzip_bzimage(fake_vmlinux(true, 7), t.path);
    put32(image, 0x24c, static_cast<std::uint32_t>(image.size())); // payload_length past EOF
    auto h = parse_setup_header(image);
    ASSERT_FALSE(h);
    EXPECT_NE(h.error().message().find("outside"), std::string::npos) << h.error().message();
    put32(image, 0x24c, 100);
    put32(image, 0x248, 0xfffffff0u); // offset past EOF, with no overflow
    EXPECT_FALSE(parse_setup_header(image));
    auto b = choose_kernel_boot(stored_bzimage(t, image), "x86_64", BootMode::auto_, t.cache());
    ASSERT_FALSE(b);
    EXPECT_NE(b.error().message().find("outside"), std::string::npos) << b.error().message();
}

TEST(KernelImage, CorruptPayloadIsAnError) {
    TempDir t;
    const Bytes elf = fake_vmlinux(true, 8);
    for (const auto& tool : kTools) {
        SCOPED_TRACE(tool.name);
        if (!installed(tool))
            GTEST_SKIP() << tool.command << ": not installed";
        Bytes payload = compress(tool.command, elf, t.path);
        if (tool.name == "lz4") // no checksum in the legacy frame: only its structure can be wrong
            put32(payload, 4, 0x7ffffff0u);
        for (std::size_t i = payload.size() / 3; i < payload.size() / 3 + 64; i++)
            payload[i] ^= 0x5a;
        auto b = choose_kernel_boot(stored_bzimage(t, bzimage(payload)), "x86_64", BootMode::auto_, t.cache());
        ASSERT_FALSE(b) << "a damaged " << tool.name << " payload extracted";
        const std::string message = b.error().message();
        EXPECT_NE(message.find(tool.name), std::string::npos) << message;
        // It says why, in words, not only a library's number.
        EXPECT_TRUE(std::regex_search(message, std::regex("corrupt|invalid|incorrect|checksum|too long|limit|truncated|Corrupt")))
            << message;
        EXPECT_FALSE(std::regex_search(message, std::regex("error -?[0-9]+\\)?$"))) << message;
    }
    EXPECT_FALSE(fs::exists(fs::path(t.cache()) / "vmlinux") && !fs::is_empty(fs::path(t.cache()) / "vmlinux"));
}

TEST(KernelImage, OutputIsBoundedByTheRecordedSize) {
    TempDir t;
    const Bytes elf = fake_vmlinux(true, 9);
    Bytes payload = compress("xz --check=crc32", elf, t.path);
    put32(payload, payload.size() - 4, 1000); // claims far less than it holds
    auto small = choose_kernel_boot(stored_bzimage(t, bzimage(payload)), "x86_64", BootMode::auto_, t.cache());
    ASSERT_FALSE(small);
    EXPECT_NE(small.error().message().find("limit"), std::string::npos) << small.error().message();
    put32(payload, payload.size() - 4, 0xffffffffu); // more than the 1 GiB limit
    auto big = choose_kernel_boot(stored_bzimage(t, bzimage(payload)), "x86_64", BootMode::auto_, t.cache());
    ASSERT_FALSE(big);
    EXPECT_NE(big.error().message().find("limit"), std::string::npos) << big.error().message();
    // A stream cut short inside the payload (the size still appended).
    Bytes cut(payload.begin(), payload.begin() + static_cast<long>(payload.size() / 2));
    append32(cut, static_cast<std::uint32_t>(elf.size()));
    auto b = choose_kernel_boot(stored_bzimage(t, bzimage(cut)), "x86_64", BootMode::auto_, t.cache());
    ASSERT_FALSE(b);
    EXPECT_NE(b.error().message().find("truncated"), std::string::npos) << b.error().message();
}

TEST(KernelImage, CacheHitDoesNotRewriteAndANewImageIsExtractedAgain) {
    TempDir t;
    const std::string path = stored_bzimage(t, gzip_bzimage(fake_vmlinux(true, 10), t.path));
    auto first = pvh_kernel(path, sha256_file(path), t.cache());
    ASSERT_TRUE(first && first.value().extracted);
    struct stat before {};
    ASSERT_EQ(::stat(first.value().path.c_str(), &before), 0);
    auto again = pvh_kernel(path, sha256_file(path), t.cache());
    ASSERT_TRUE(again);
    EXPECT_FALSE(again.value().extracted);
    EXPECT_EQ(again.value().path, first.value().path);
    EXPECT_EQ(again.value().notes.build_id, hex_of(build_id(10)));
    struct stat after {};
    ASSERT_EQ(::stat(again.value().path.c_str(), &after), 0);
    EXPECT_EQ(after.st_ino, before.st_ino); // the same file, not rewritten (only touched: used now)
    EXPECT_EQ(after.st_size, before.st_size);

    // A rebuilt image (new SHA-256) is extracted again, beside the old one.
    const Bytes rebuilt = fake_vmlinux(true, 11);
    stored_bzimage(t, gzip_bzimage(rebuilt, t.path));
    auto next = pvh_kernel(path, sha256_file(path), t.cache());
    ASSERT_TRUE(next);
    EXPECT_TRUE(next.value().extracted);
    EXPECT_NE(next.value().path, first.value().path);
    EXPECT_EQ(read_file(next.value().path), rebuilt);

    // A damaged cache file is replaced, not booted.
    write_file(first.value().path, Bytes(100, 0));
    stored_bzimage(t, gzip_bzimage(fake_vmlinux(true, 10), t.path));
    auto repaired = pvh_kernel(path, sha256_file(path), t.cache());
    ASSERT_TRUE(repaired);
    EXPECT_TRUE(repaired.value().extracted);
    EXPECT_EQ(read_file(repaired.value().path), fake_vmlinux(true, 10));
}

TEST(KernelImage, CacheKeepsTheNewestAndDropsStaleTemporaries) {
    TempDir t;
    const fs::path dir = fs::path(t.cache()) / "vmlinux";
    fs::create_directories(dir);
    // Ten kernels from earlier bisect steps, two hours old and older, and a temporary file
    // that a killed run left.
    const auto now = fs::file_time_type::clock::now();
    for (int i = 0; i < 10; i++) {
        write_file((dir / ("old" + std::to_string(i))).string(), Bytes(10, 0));
        fs::last_write_time(dir / ("old" + std::to_string(i)), now - std::chrono::hours(2 + i));
    }
    write_file((dir / ".abc.tmp.XXXXXX").string(), Bytes(10, 0));
    fs::last_write_time(dir / ".abc.tmp.XXXXXX", now - std::chrono::hours(2));
    // A kernel used a minute ago stays, however many there are.
    write_file((dir / "recent").string(), Bytes(10, 0));
    fs::last_write_time(dir / "recent", now - std::chrono::minutes(1));

    const std::string path = stored_bzimage(t, gzip_bzimage(fake_vmlinux(true, 12), t.path));
    auto k = pvh_kernel(path, sha256_file(path), t.cache());
    ASSERT_TRUE(k && k.value().extracted);
    EXPECT_TRUE(fs::exists(k.value().path));
    EXPECT_TRUE(fs::exists(dir / "recent"));
    EXPECT_FALSE(fs::exists(dir / ".abc.tmp.XXXXXX"));
    for (int i = 0; i < 10; i++) // the 8 newest of the old ones are kept
        EXPECT_EQ(fs::exists(dir / ("old" + std::to_string(i))), i < 8) << i;
}

std::vector<fs::path> listing(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        out.push_back(e.path().filename());
    return out;
}

TEST(KernelImage, ConcurrentExtractionsAgreeAndLeaveNoTemporaryFile) {
    TempDir t;
    const Bytes elf = fake_vmlinux(true, 12);
    const std::string path = stored_bzimage(t, bzimage(compress("xz --check=crc32", elf, t.path)));
    const std::string sha = sha256_file(path);
    const fs::path expected = fs::path(t.cache()) / "vmlinux" / sha;

    // Processes (as concurrent `initbench run`s), each checking what it got.
    std::vector<pid_t> children;
    for (int i = 0; i < 3; i++) {
        pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            auto k = pvh_kernel(path, sha, t.cache());
            _exit(k && k.value().path == expected.string() && read_file(k.value().path) == elf ? 0 : 1);
        }
        children.push_back(pid);
    }
    // And threads in this one, at the same time.
    std::vector<Result<PvhKernel>> got(4, Error{"not run"});
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < got.size(); i++)
        threads.emplace_back([&, i] { got[i] = pvh_kernel(path, sha, t.cache()); });
    for (auto& th : threads)
        th.join();
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    for (auto& k : got) {
        ASSERT_TRUE(k) << k.error().message();
        EXPECT_EQ(k.value().path, expected.string());
        EXPECT_EQ(read_file(k.value().path), elf);
    }
    EXPECT_EQ(listing(expected.parent_path()), std::vector<fs::path>{sha});
}

TEST(KernelImage, MalformedNotesAreErrors) {
    Bytes elf = fake_vmlinux(true, 13);
    auto good = read_vmlinux_notes(elf);
    ASSERT_TRUE(good);
    EXPECT_TRUE(good.value().pvh);
    // The first note's name size made to run past the segment.
    put32(elf, sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), 0x10000);
    EXPECT_FALSE(read_vmlinux_notes(elf));
    Bytes cut(elf.begin(), elf.begin() + 70); // program headers cut off
    EXPECT_FALSE(read_vmlinux_notes(cut));
    EXPECT_FALSE(read_vmlinux_notes(Bytes(100, 0)));
}

} // namespace
} // namespace initbench
