// Unit tests of the initramfs writer: the manifest's lines, reproducible newc archives at
// every gzip effort, and reading an image's archives back.
#include "host/base/process.h"
#include "host/image/cpio_archive.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <zlib.h>

#include "tests/unit/temp_dir.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---- cpio_archive: the manifest and the archive --------------------------------------

TEST(Manifest, EveryLineKind) {
    const auto entries = parse_manifest(
        "# initbench image\n"
        "\n"
        "dir /dev 0755\n"
        "   dir   proc   555   # trailing comment\n"
        "file /init 0755 /build/initbench-init\n"
        "slink /bin/sh busybox\n"
        "nod /dev/console 0600 c 5 1\n");
    ASSERT_EQ(entries.size(), 5u);
    using K = CpioEntry::Kind;
    EXPECT_EQ(entries[0].kind, K::dir);
    EXPECT_EQ(entries[0].path, "dev");
    EXPECT_EQ(entries[0].mode, 0755u);
    EXPECT_EQ(entries[1].path, "proc");
    EXPECT_EQ(entries[1].mode, 0555u);
    EXPECT_EQ(entries[2].kind, K::file);
    EXPECT_EQ(entries[2].path, "init");
    EXPECT_EQ(entries[2].source, "/build/initbench-init");
    EXPECT_EQ(entries[3].kind, K::symlink);
    EXPECT_EQ(entries[3].path, "bin/sh");
    EXPECT_EQ(entries[3].source, "busybox");
    EXPECT_EQ(entries[3].mode, 0777u);
    EXPECT_EQ(entries[4].kind, K::chardev);
    EXPECT_EQ(entries[4].path, "dev/console");
    EXPECT_EQ(entries[4].mode, 0600u);
    EXPECT_EQ(entries[4].major, 5u);
    EXPECT_EQ(entries[4].minor, 1u);
    EXPECT_TRUE(parse_manifest("# only a comment\n\n   \n").empty());
}

// Expects parse_manifest to throw a std::runtime_error that names `line`.
void expect_malformed(const std::string& text, int line) {
    SCOPED_TRACE(text);
    try {
        parse_manifest(text);
        ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "line " + std::to_string(line))) << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a std::runtime_error: " << e.what();
    }
}

TEST(Manifest, MalformedLinesNameTheLine) {
    const std::string ok = "# header\ndir /dev 0755\n";
    for (const char* bad : {"dir", "dir /x", "file /x 0644", "file /x", "slink /x", "nod /dev/null 0666 c 1",
                            "nod /dev/null 0666 b 1 3", "nod /dev/null 0666 c one 3", "pipe /x 0644",
                            "dir / 0755"})
        expect_malformed(ok + bad + "\n", 3);
}

TEST(Manifest, BadModesNameTheLine) {
    // Regression (was a bug): host/image/cpio_archive.cpp parse_manifest(): the mode is converted after the checks with
    // std::stoul(mode, nullptr, 8): "rwx" throws std::invalid_argument (not runtime_error, no
    // line number), "0968" silently becomes 0, "0100755" smuggles file-type bits into the
    // mode that write_cpio_gz() ORs with S_IFDIR/S_IFREG.
    const std::string ok = "dir /dev 0755\n";
    for (const char* bad : {"dir /x rwx", "file /x 0968 /src", "dir /x 0100755", "nod /x -1 c 1 3"})
        expect_malformed(ok + bad + "\n", 2);
}

// One entry of a newc archive, read back by hand (not with libarchive, which wrote it).
struct NewcEntry {
    std::string name;
    unsigned long ino, mode, uid, gid, nlink, mtime, devmajor, devminor, rdevmajor, rdevminor, check;
    std::string data;
};

std::string gunzip(const std::string& gz) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK); // gzip wrapper only
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
    z.avail_in = static_cast<uInt>(gz.size());
    std::string out;
    char buf[1 << 15];
    int rc;
    do {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
    } while (rc == Z_OK);
    EXPECT_EQ(rc, Z_STREAM_END);
    EXPECT_EQ(z.avail_in, 0u) << "bytes after the gzip stream";
    inflateEnd(&z);
    return out;
}

std::vector<NewcEntry> read_newc(const std::string& cpio) {
    std::vector<NewcEntry> out;
    auto pad4 = [](size_t n) { return (n + 3) & ~size_t(3); };
    size_t pos = 0;
    for (;;) {
        if (pos + 110 > cpio.size()) {
            ADD_FAILURE() << "truncated header at " << pos;
            return out;
        }
        if (cpio.compare(pos, 6, "070701") != 0) {
            ADD_FAILURE() << "bad magic at " << pos;
            return out;
        }
        unsigned long f[13];
        for (int i = 0; i < 13; i++)
            f[i] = std::stoul(cpio.substr(pos + 6 + 8 * i, 8), nullptr, 16);
        NewcEntry e{"", f[0], f[1], f[2], f[3], f[4], f[5], f[7], f[8], f[9], f[10], f[12], ""};
        const size_t namesize = f[11], filesize = f[6];
        e.name = cpio.substr(pos + 110, namesize - 1);
        EXPECT_EQ(cpio[pos + 110 + namesize - 1], '\0');
        pos = pad4(pos + 110 + namesize);
        e.data = cpio.substr(pos, filesize);
        pos = pad4(pos + filesize);
        if (e.name == "TRAILER!!!")
            return out;
        out.push_back(std::move(e));
    }
}

// Both efforts (pack's zlib, the build's zopfli) write the same archive, reproducibly.
class CpioArchiveEffort : public ::testing::TestWithParam<GzipEffort> {};
INSTANTIATE_TEST_SUITE_P(Effort, CpioArchiveEffort, ::testing::Values(GzipEffort::fast, GzipEffort::smallest),
                         [](const auto& info) { return info.param == GzipEffort::fast ? "Fast" : "Smallest"; });

TEST_P(CpioArchiveEffort, ReproducibleNewcGzip) {
    TempDir tmp;
    const std::string init_bytes = std::string("\x7f" "ELF fake init\0with a NUL", 24);
    const std::string init_src = tmp.file("init-src", init_bytes);
    const std::string conf_src = tmp.file("conf-src", "profile=smoke\n"); // 14 bytes: needs padding
    std::vector<CpioEntry> entries = parse_manifest("dir /dev 0755\n"
                                                    "nod /dev/console 0600 c 5 1\n"
                                                    "dir /bin 0755\n"
                                                    "slink /bin/sh busybox\n"
                                                    "file /etc/initbench.conf 0644 " + conf_src + "\n"
                                                    "dir /etc 0755\n"
                                                    "file /init 0755 " + init_src + "\n");
    write_cpio_gz(entries, tmp / "a.cpio.gz", GetParam());
    // Same entries in another order, later, from a source with another mtime, to another name.
    std::reverse(entries.begin(), entries.end());
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    fs::last_write_time(init_src, fs::last_write_time(init_src) - std::chrono::hours(24));
    write_cpio_gz(entries, tmp / "b-other-name.cpio.gz", GetParam());

    const std::string a = slurp(tmp / "a.cpio.gz"), b = slurp(tmp / "b-other-name.cpio.gz");
    ASSERT_GT(a.size(), 18u);
    EXPECT_TRUE(a == b) << "archives differ: not reproducible";

    // gzip header: magic, deflate, MTIME (bytes 4..7) zero, and no original file name.
    EXPECT_EQ(static_cast<unsigned char>(a[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(a[1]), 0x8b);
    EXPECT_EQ(a[2], 8);
    EXPECT_EQ(a.substr(4, 4), std::string(4, '\0'));
    EXPECT_EQ(a[3] & 0x08, 0) << "FNAME set: the output name is in the archive";

    const auto files = read_newc(gunzip(a));
    std::vector<std::string> names;
    for (const auto& e : files)
        names.push_back(e.name);
    EXPECT_EQ(names, (std::vector<std::string>{"bin", "bin/sh", "dev", "dev/console", "etc",
                                                "etc/initbench.conf", "init"}));
    std::map<std::string, NewcEntry> by_name;
    for (const auto& e : files) {
        SCOPED_TRACE(e.name);
        EXPECT_EQ(e.mtime, 0u);
        EXPECT_EQ(e.uid, 0u);
        EXPECT_EQ(e.gid, 0u);
        EXPECT_EQ(e.devmajor, 0u);
        EXPECT_EQ(e.devminor, 0u);
        EXPECT_EQ(e.check, 0u);
        by_name[e.name] = e;
    }
    for (size_t i = 0; i < files.size(); i++)
        EXPECT_EQ(files[i].ino, i + 1) << files[i].name; // sequential in path order

    EXPECT_EQ(by_name["dev"].mode, unsigned(S_IFDIR | 0755));
    EXPECT_EQ(by_name["init"].mode, unsigned(S_IFREG | 0755));
    EXPECT_EQ(by_name["init"].data, init_bytes);
    EXPECT_EQ(by_name["etc/initbench.conf"].mode, unsigned(S_IFREG | 0644));
    EXPECT_EQ(by_name["etc/initbench.conf"].data, "profile=smoke\n");
    EXPECT_EQ(by_name["bin/sh"].mode, unsigned(S_IFLNK | 0777));
    EXPECT_EQ(by_name["bin/sh"].data, "busybox");
    const NewcEntry& console = by_name["dev/console"];
    EXPECT_EQ(console.mode, unsigned(S_IFCHR | 0600));
    EXPECT_EQ(console.rdevmajor, 5u);
    EXPECT_EQ(console.rdevminor, 1u);
    EXPECT_EQ(console.data, "");
}

TEST_P(CpioArchiveEffort, MissingSourceThrows) {
    TempDir tmp;
    std::vector<CpioEntry> entries = parse_manifest("file /init 0755 " + (tmp / "does-not-exist") + "\n");
    EXPECT_THROW(write_cpio_gz(entries, tmp / "x.cpio.gz", GetParam()), std::runtime_error);
    EXPECT_THROW(write_cpio_gz({}, tmp / "no-such-dir/x.cpio.gz", GetParam()), std::runtime_error);
}

// zopfli's gzip of the same archive is smaller than zlib's level 9 (text-like data).
TEST(CpioArchive, SmallestIsSmaller) {
    TempDir tmp;
    std::string text;
    for (int i = 0; i < 2000; i++)
        text += "line " + std::to_string(i * 7919 % 1000) + " of a profile\n";
    const auto entries = parse_manifest("file /init 0755 " + tmp.file("src", text) + "\n");
    write_cpio_gz(entries, tmp / "fast.cpio.gz", GzipEffort::fast);
    write_cpio_gz(entries, tmp / "small.cpio.gz", GzipEffort::smallest);
    const std::string fast = slurp(tmp / "fast.cpio.gz"), small = slurp(tmp / "small.cpio.gz");
    EXPECT_LT(small.size(), fast.size());
    EXPECT_EQ(gunzip(small), gunzip(fast)); // the same cpio inside
}

// A packed image is the base archive and pack's appended one: both are read, the later
// entry of one name winning (as the kernel unpacks them); a cut image is not read at all.
TEST(CpioArchive, ReadsEveryArchiveOfAnImage) {
    TempDir tmp;
    write_cpio_gz(parse_manifest("dir /bin 0755\nfile /bin/sh 0755 " + tmp.file("sh", "base sh") +
                                 "\nslink /bin/true /bin/sh\nfile /etc/a 0644 " + tmp.file("a", "old") + "\n"),
                  tmp / "base.cpio.gz");
    write_cpio_gz(parse_manifest("file /payload/bin/insmod 0755 " + tmp.file("insmod", "wrapper") +
                                 "\nfile /etc/a 0644 " + tmp.file("a2", "new") + "\n"),
                  tmp / "payload.cpio.gz");
    const std::string packed = slurp(tmp / "base.cpio.gz") + slurp(tmp / "payload.cpio.gz");
    std::ofstream(tmp / "packed.cpio.gz", std::ios::binary) << packed;
    auto all = [](const std::string&) { return true; };
    const auto files = read_cpio_files(tmp / "packed.cpio.gz", all);
    ASSERT_TRUE(files);
    EXPECT_EQ(files->at("bin/sh"), "base sh");
    EXPECT_EQ(files->at("bin/true"), "/bin/sh"); // a symlink's target
    EXPECT_EQ(files->at("payload/bin/insmod"), "wrapper");
    EXPECT_EQ(files->at("etc/a"), "new");
    EXPECT_EQ(read_cpio_files(tmp / "packed.cpio.gz", all, 3)->at("payload/bin/insmod"), "wra");
    // Uncompressed, and cut short.
    std::ofstream(tmp / "plain.cpio", std::ios::binary) << gunzip(slurp(tmp / "base.cpio.gz"));
    EXPECT_EQ(read_cpio_files(tmp / "plain.cpio", all)->at("etc/a"), "old");
    const std::string plain = gunzip(slurp(tmp / "base.cpio.gz"));
    std::ofstream(tmp / "cut.cpio", std::ios::binary) << plain.substr(0, 150);
    EXPECT_FALSE(read_cpio_files(tmp / "cut.cpio", all));
}

} // namespace
} // namespace initbench
