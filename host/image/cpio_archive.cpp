#include "host/image/cpio_archive.h"

#include "sys/sys.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <archive.h>
#include <archive_entry.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <zopfli/zopfli.h>

namespace initbench {

std::vector<CpioEntry> parse_manifest(const std::string& text) {
    std::vector<CpioEntry> out;
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); n++) {
        if (auto hash = line.find('#'); hash != std::string::npos)
            line.resize(hash);
        std::istringstream f(line);
        std::string kind, path;
        if (!(f >> kind))
            continue;
        CpioEntry e;
        f >> path;
        e.path = path.starts_with('/') ? path.substr(1) : path;
        std::string mode, dev;
        bool good = !e.path.empty();
        if (kind == "dir") {
            e.kind = CpioEntry::Kind::dir;
            good = good && bool(f >> mode);
        } else if (kind == "file") {
            e.kind = CpioEntry::Kind::file;
            good = good && bool(f >> mode >> e.source);
        } else if (kind == "slink") {
            e.kind = CpioEntry::Kind::symlink;
            mode = "0777";
            good = good && bool(f >> e.source);
        } else if (kind == "nod") {
            e.kind = CpioEntry::Kind::chardev;
            good = good && bool(f >> mode >> dev >> e.major >> e.minor) && dev == "c";
        } else {
            good = false;
        }
        // A mode is permission bits only: 1 to 4 octal digits.
        good = good && !mode.empty() && mode.size() <= 4 && mode.find_first_not_of("01234567") == std::string::npos;
        if (!good)
            throw std::runtime_error("manifest line " + std::to_string(n) + ": malformed: " + line);
        e.mode = static_cast<unsigned>(std::stoul(mode, nullptr, 8));
        out.push_back(std::move(e));
    }
    return out;
}

namespace {

struct ArchiveDeleter {
    void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
    void operator()(archive_entry* e) const { archive_entry_free(e); }
};

void check(archive* a, int rc, const std::string& what) {
    if (rc != ARCHIVE_OK)
        throw std::runtime_error(what + ": " + (archive_error_string(a) ? archive_error_string(a) : "failed"));
}

std::string slurp(const std::string& path) {
    auto text = read_whole_file(path);
    if (!text)
        throw std::runtime_error("cannot read " + text.error().message());
    return std::move(text.value());
}

} // namespace

namespace {

// The whole decompressed stream of an image, through any of the kernel's compressors that
// libarchive reads (gzip members one after another among them); none if it cannot be read.
std::optional<std::string> decompressed(const std::string& path) {
    struct Deleter {
        void operator()(archive* a) const { archive_read_free(a); }
    };
    std::unique_ptr<archive, Deleter> a(archive_read_new());
    archive_read_support_filter_all(a.get());
    archive_read_support_format_raw(a.get());
    archive_entry* e = nullptr;
    if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK ||
        archive_read_next_header(a.get(), &e) != ARCHIVE_OK)
        return std::nullopt;
    std::string out;
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = archive_read_data(a.get(), buf, sizeof buf);
        if (n < 0)
            return std::nullopt;
        if (n == 0)
            return out;
        out.append(buf, static_cast<size_t>(n));
    }
}

std::optional<size_t> newc_field(const std::string& data, size_t at) {
    size_t value = 0;
    for (size_t i = at; i < at + 8; i++) {
        const char c = data[i];
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0)
            return std::nullopt;
        value = value * 16 + static_cast<size_t>(digit);
    }
    return value;
}

constexpr size_t align4(size_t n) { return (n + 3) & ~size_t(3); }

} // namespace

std::optional<std::map<std::string, std::string>> read_cpio_files(
    const std::string& path, const std::function<bool(const std::string&)>& wanted, size_t limit) {
    // An image is newc archives one after another, with zero padding between, as the kernel
    // unpacks them (a packed image: the base, then what pack appended). libarchive's cpio
    // reader stops at the first trailer, so the headers are walked here: 110 bytes of magic
    // and hex fields, the name, the data, each 4-byte aligned. A later entry of one name wins,
    // as in the kernel.
    const auto data = decompressed(path);
    if (!data)
        return std::nullopt;
    constexpr size_t kHeader = 110, kFileSize = 54, kNameSize = 94;
    std::map<std::string, std::string> out;
    for (size_t pos = 0; pos < data->size();) {
        if ((*data)[pos] == '\0') { // padding after a trailer
            pos++;
            continue;
        }
        if (pos + kHeader > data->size() || (data->compare(pos, 6, "070701") != 0 && data->compare(pos, 6, "070702") != 0))
            return std::nullopt;
        const auto file_size = newc_field(*data, pos + kFileSize), name_size = newc_field(*data, pos + kNameSize);
        if (!file_size || !name_size || *name_size == 0)
            return std::nullopt;
        const size_t body = align4(pos + kHeader + *name_size);
        if (body > data->size() || *file_size > data->size() - body)
            return std::nullopt;
        std::string name = data->substr(pos + kHeader, *name_size - 1);
        if (name != "TRAILER!!!" && wanted(name))
            out[std::move(name)] = data->substr(body, std::min(*file_size, limit));
        pos = align4(body + *file_size);
    }
    return out;
}

namespace {

// Writes the entries, sorted by path, into `a` (a newc archive, opened).
void add_entries(archive* a, std::vector<CpioEntry> entries) {
    std::sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) { return x.path < y.path; });
    int64_t ino = 1;
    for (const auto& e : entries) {
        std::unique_ptr<archive_entry, EntryDeleter> ent(archive_entry_new());
        archive_entry_set_pathname(ent.get(), e.path.c_str());
        archive_entry_set_ino(ent.get(), ino++);
        archive_entry_set_nlink(ent.get(), e.kind == CpioEntry::Kind::dir ? 2 : 1);
        archive_entry_set_mtime(ent.get(), 0, 0);
        archive_entry_set_uid(ent.get(), 0);
        archive_entry_set_gid(ent.get(), 0);
        archive_entry_set_size(ent.get(), 0);
        std::string data;
        switch (e.kind) {
        case CpioEntry::Kind::dir:
            archive_entry_set_mode(ent.get(), S_IFDIR | e.mode);
            break;
        case CpioEntry::Kind::file:
            data = e.contents ? *e.contents : slurp(e.source);
            archive_entry_set_mode(ent.get(), S_IFREG | e.mode);
            archive_entry_set_size(ent.get(), static_cast<int64_t>(data.size()));
            break;
        case CpioEntry::Kind::symlink:
            archive_entry_set_mode(ent.get(), S_IFLNK | 0777);
            archive_entry_set_symlink(ent.get(), e.source.c_str());
            break;
        case CpioEntry::Kind::chardev:
            archive_entry_set_mode(ent.get(), S_IFCHR | e.mode);
            archive_entry_set_rdevmajor(ent.get(), e.major);
            archive_entry_set_rdevminor(ent.get(), e.minor);
            break;
        }
        check(a, archive_write_header(a, ent.get()), "write " + e.path);
        if (!data.empty() && archive_write_data(a, data.data(), data.size()) < 0)
            check(a, ARCHIVE_FATAL, "write data of " + e.path);
    }
}

// zopfli's deflate into a gzip container (no name, mtime 0): about 4 % smaller than zlib's
// level 9, and any kernel that unpacks gzip unpacks it.
std::string zopfli_gzip(const std::string& data) {
    ZopfliOptions options;
    ZopfliInitOptions(&options);
    options.numiterations = 5; // its default, 15, takes twice as long for a few hundred bytes
    unsigned char* out = nullptr;
    size_t size = 0;
    ZopfliCompress(&options, ZOPFLI_FORMAT_GZIP, reinterpret_cast<const unsigned char*>(data.data()),
                   data.size(), &out, &size);
    std::string gz(reinterpret_cast<const char*>(out), size);
    std::free(out);
    return gz;
}

} // namespace

void write_cpio_gz(std::vector<CpioEntry> entries, const std::string& out, GzipEffort effort) {
    std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
    check(a.get(), archive_write_set_format_cpio_newc(a.get()), "cpio format");
    if (effort == GzipEffort::fast) {
        check(a.get(), archive_write_add_filter_gzip(a.get()), "gzip filter");
        check(a.get(), archive_write_set_options(a.get(), "gzip:!timestamp,gzip:compression-level=9"), "gzip options");
        check(a.get(), archive_write_open_filename(a.get(), out.c_str()), "open " + out);
        add_entries(a.get(), std::move(entries));
        check(a.get(), archive_write_close(a.get()), "close " + out);
        return;
    }
    // The whole archive in memory (a few MB), then compressed at once.
    std::string cpio;
    auto append = [](archive*, void* to, const void* buf, size_t n) -> la_ssize_t {
        static_cast<std::string*>(to)->append(static_cast<const char*>(buf), n);
        return static_cast<la_ssize_t>(n);
    };
    check(a.get(), archive_write_set_bytes_in_last_block(a.get(), 1), "cpio block padding");
    check(a.get(), archive_write_open2(a.get(), &cpio, nullptr, append, nullptr, nullptr), "open " + out);
    add_entries(a.get(), std::move(entries));
    check(a.get(), archive_write_close(a.get()), "close " + out);
    const std::string gz = zopfli_gzip(cpio);
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    if (!file.write(gz.data(), static_cast<std::streamsize>(gz.size())) || !file.flush())
        throw std::runtime_error("write " + out + ": " + std::strerror(errno));
}

} // namespace initbench
