#include "host/boot/kernel_image.h"

#include "common/text.h"
#include "host/base/hash.h"
#include "host/boot/firmware_boot.h"
#include "sys/mapping.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "ELF and setup headers are read in place");

// The note QEMU looks for to boot an ELF kernel at its 32-bit PVH entry.
constexpr std::uint32_t kXenElfnotePhys32Entry = 18;

// Setup header offsets (Documentation/x86/boot.rst).
constexpr std::size_t kSetupSects = 0x1f1, kSyssize = 0x1f4, kHeaderMagic = 0x202, kVersion = 0x206,
                      kPayloadOffset = 0x248, kPayloadLength = 0x24c;

std::uint32_t le(std::span<const std::uint8_t> f, std::size_t at, std::size_t bytes) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < bytes; i++)
        v |= std::uint32_t(f[at + i]) << (8 * i);
    return v;
}

template <typename T>
bool load(std::span<const std::uint8_t> f, std::uint64_t at, T& out) {
    if (at > f.size() || f.size() - at < sizeof(T))
        return false;
    std::memcpy(&out, f.data() + at, sizeof(T));
    return true;
}

// A whole file, mapped read-only.
class MappedFile {
public:
    Status open(const std::string& path) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return errno_error("open " + path);
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            Error e = errno_error("stat " + path);
            ::close(fd);
            return e;
        }
        const auto size = static_cast<std::size_t>(st.st_size);
        const bool mapped = size == 0 || mapping_.map(size, PROT_READ, MAP_PRIVATE, fd);
        const int err = errno;
        ::close(fd);
        if (!mapped)
            return Error{"mmap " + path, err};
        return ok();
    }
    std::span<const std::uint8_t> bytes() const {
        return {static_cast<const std::uint8_t*>(mapping_.data()), mapping_.size()};
    }

private:
    Mapping mapping_;
};

Status read_notes(std::span<const std::uint8_t> seg, std::size_t align, VmlinuxNotes& n) {
    auto padded = [align](std::size_t len) { return (len + align - 1) / align * align; };
    std::size_t pos = 0;
    while (seg.size() - pos >= sizeof(Elf64_Nhdr)) {
        Elf64_Nhdr h;
        std::memcpy(&h, seg.data() + pos, sizeof h);
        pos += sizeof h;
        if (padded(h.n_namesz) > seg.size() - pos)
            return Error{"an ELF note's name runs past its segment"};
        std::string_view name(reinterpret_cast<const char*>(seg.data() + pos), h.n_namesz);
        if (!name.empty() && name.back() == '\0')
            name.remove_suffix(1);
        pos += padded(h.n_namesz);
        if (h.n_descsz > seg.size() - pos)
            return Error{"an ELF note's data runs past its segment"};
        auto desc = seg.subspan(pos, h.n_descsz);
        pos += std::min(padded(h.n_descsz), seg.size() - pos);
        if (name == "Xen" && h.n_type == kXenElfnotePhys32Entry) {
            if (desc.size() != 4 && desc.size() != 8)
                return Error{"the PVH entry note holds " + std::to_string(desc.size()) + " bytes, not 4 or 8"};
            std::uint64_t entry = 0;
            std::memcpy(&entry, desc.data(), desc.size());
            n.pvh = true;
            n.pvh_entry = entry;
        } else if (name == "GNU" && h.n_type == NT_GNU_BUILD_ID) {
            n.build_id = to_hex(desc);
        }
    }
    return ok();
}

PvhKernel impossible(std::string reason) {
    PvhKernel k;
    k.reason = std::move(reason);
    return k;
}

Result<PvhKernel> elf_kernel(const std::string& path, std::span<const std::uint8_t> bytes) {
    auto notes = read_vmlinux_notes(bytes);
    if (!notes)
        return impossible("an ELF file but not an x86_64 vmlinux: " + notes.error().message());
    if (!notes.value().pvh)
        return impossible("the vmlinux has no PVH entry note (Xen note 18: CONFIG_PVH is off)");
    PvhKernel k;
    k.path = path;
    k.notes = notes.value();
    return k;
}

// A cached vmlinux is used only if it still reads as one with the PVH note.
std::optional<PvhKernel> cached(const fs::path& path) {
    MappedFile m;
    if (!m.open(path.string()))
        return std::nullopt;
    auto k = elf_kernel(path.string(), m.bytes());
    if (!k || k.value().path.empty())
        return std::nullopt;
    return k.value();
}

Status write_all(int fd, std::span<const std::uint8_t> data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return errno_error("write");
        data = data.subspan(static_cast<std::size_t>(n));
    }
    return ok();
}

// Writes a unique temporary file beside `path`, syncs it and renames it over `path`: a
// reader sees the whole file or none, and concurrent writers of the same bytes agree.
Status write_atomically(const fs::path& path, std::span<const std::uint8_t> data) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
        return Error{"create " + path.parent_path().string() + ": " + ec.message()};
    std::string tmp = (path.parent_path() / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
    int fd = ::mkstemp(tmp.data());
    if (fd < 0)
        return errno_error("create a temporary file in " + path.parent_path().string());
    Status s = write_all(fd, data);
    if (s && ::fchmod(fd, 0644) != 0)
        s = errno_error("chmod " + tmp);
    if (s && ::fsync(fd) != 0)
        s = errno_error("fsync " + tmp);
    if (::close(fd) != 0 && s)
        s = errno_error("close " + tmp);
    if (s && ::rename(tmp.c_str(), path.c_str()) != 0)
        s = errno_error("rename " + tmp + " to " + path.string());
    if (!s) {
        ::unlink(tmp.c_str());
        return s;
    }
    // The rename itself survives a crash only once the directory is synced.
    if (int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return ok();
}

// The cache keeps the newest few vmlinux files (a bisect adds one of ~65 MB per step) and
// drops temporary files a killed run left. A file used within the hour is kept whatever
// the count: another run may be about to boot it.
void prune_cache(const fs::path& dir, const fs::path& keep) {
    constexpr std::size_t kKeepNewest = 8;
    const auto hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
    std::vector<std::pair<fs::file_time_type, fs::path>> kernels;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const auto mtime = e.last_write_time(ec);
        if (ec || !e.is_regular_file(ec) || mtime > hour_ago || e.path() == keep)
            continue;
        if (e.path().filename().string().starts_with("."))
            fs::remove(e.path(), ec); // a temporary file of a run that was killed mid-write
        else
            kernels.emplace_back(mtime, e.path());
    }
    std::sort(kernels.begin(), kernels.end(), std::greater<>());
    for (std::size_t i = kKeepNewest; i < kernels.size(); i++)
        fs::remove(kernels[i].second, ec);
}

// Decompresses a bzImage's payload and caches the vmlinux when it can boot through PVH.
Result<PvhKernel> extract(std::span<const std::uint8_t> payload, const fs::path& target) {
    if (target.empty())
        return impossible("no cache directory to keep the vmlinux in");
    auto c = identify_compression(payload);
    if (!c)
        return impossible("the payload's compression is not one the kernel uses (it starts " +
                          to_hex(payload.first(std::min<std::size_t>(payload.size(), 6))) + ")");
    // The build appends the uncompressed size (4 bytes, little-endian) after the stream.
    if (payload.size() < 8)
        return Error{"the payload of " + std::to_string(payload.size()) + " bytes is too short"};
    const std::size_t recorded = le(payload, payload.size() - 4, 4);
    if (recorded > kMaxVmlinuxBytes)
        return Error{"the payload says it holds " + std::to_string(recorded) + " bytes, more than the limit of " +
                     std::to_string(kMaxVmlinuxBytes)};
    const std::string name = compression_name(*c);
    auto out = decompress(*c, payload.first(payload.size() - 4), recorded);
    if (!out)
        return Error{"the " + name + " payload does not decompress: " + out.error().message()};
    if (out.value().size() != recorded)
        return Error{"the " + name + " payload decompressed to " + std::to_string(out.value().size()) +
                     " bytes, but its recorded size is " + std::to_string(recorded)};
    auto k = elf_kernel(target.string(), out.value());
    if (!k || k.value().path.empty())
        return k;
    k.value().compression = name;
    if (Status s = write_atomically(target, out.value()); !s)
        return impossible("the vmlinux cannot be cached: " + s.error().message());
    k.value().extracted = true;
    prune_cache(target.parent_path(), target);
    return k;
}

} // namespace

bool has_setup_header(std::span<const std::uint8_t> f) {
    return f.size() >= kHeaderMagic + 4 && std::memcmp(f.data() + kHeaderMagic, "HdrS", 4) == 0;
}

Result<SetupHeader> parse_setup_header(std::span<const std::uint8_t> f) {
    if (!has_setup_header(f))
        return Error{"no bzImage setup header (\"HdrS\" at 0x202)"};
    if (f.size() < kPayloadLength + 4)
        return Error{"the bzImage is cut short inside its setup header (" + std::to_string(f.size()) + " bytes)"};
    SetupHeader h;
    h.protocol = le(f, kVersion, 2);
    const unsigned sects = f[kSetupSects] ? f[kSetupSects] : 4; // 0 means 4 (boot.rst)
    h.setup_bytes = (sects + 1) * std::size_t(512);
    const std::uint64_t pm_bytes = std::uint64_t(le(f, kSyssize, 4)) * 16; // syssize: 16-byte units
    if (h.setup_bytes + pm_bytes > f.size())
        return Error{"the bzImage is cut short: its header says " + std::to_string(h.setup_bytes + pm_bytes) +
                     " bytes, the file has " + std::to_string(f.size())};
    if (h.protocol < 0x208)
        return h; // no payload fields before 2.08
    const std::uint64_t offset = le(f, kPayloadOffset, 4), length = le(f, kPayloadLength, 4);
    if (h.setup_bytes + offset + length > f.size() || length == 0)
        return Error{"the bzImage's payload (offset " + std::to_string(offset) + ", " + std::to_string(length) +
                     " bytes) lies outside the file's " + std::to_string(f.size() - h.setup_bytes) +
                     " bytes of protected-mode code"};
    h.payload_offset = h.setup_bytes + offset;
    h.payload_length = length;
    return h;
}

bool is_elf(std::span<const std::uint8_t> f) {
    return f.size() >= SELFMAG && std::memcmp(f.data(), ELFMAG, SELFMAG) == 0;
}

Result<VmlinuxNotes> read_vmlinux_notes(std::span<const std::uint8_t> f) {
    Elf64_Ehdr eh;
    if (!is_elf(f) || !load(f, 0, eh))
        return Error{"not an ELF file"};
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return Error{"not a little-endian ELF64 file"};
    if (eh.e_machine != EM_X86_64)
        return Error{"ELF machine " + std::to_string(eh.e_machine) + ", not x86_64"};
    if (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr))
        return Error{"program headers of " + std::to_string(eh.e_phentsize) + " bytes"};
    if (eh.e_phoff > f.size())
        return Error{"the program headers lie past the end of the file"};
    VmlinuxNotes n;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (!load(f, eh.e_phoff + std::uint64_t(i) * sizeof ph, ph))
            return Error{"the program headers run past the end of the file"};
        if (ph.p_type != PT_NOTE)
            continue;
        if (ph.p_offset > f.size() || ph.p_filesz > f.size() - ph.p_offset)
            return Error{"a note segment lies past the end of the file"};
        IB_TRY(read_notes(f.subspan(ph.p_offset, ph.p_filesz), ph.p_align == 8 ? 8 : 4, n));
    }
    return n;
}

Result<PvhKernel> pvh_kernel(const std::string& kernel, const std::string& sha256, const std::string& cache_dir) {
    MappedFile file;
    IB_TRY(file.open(kernel));
    const auto bytes = file.bytes();
    if (is_elf(bytes))
        return elf_kernel(kernel, bytes);
    if (!has_setup_header(bytes))
        return impossible("neither an ELF vmlinux nor a bzImage (no \"HdrS\" setup header)");
    auto header = parse_setup_header(bytes);
    if (!header)
        return header.error();
    const SetupHeader& h = header.value();
    if (h.payload_length == 0)
        return impossible("boot protocol " + std::to_string(h.protocol >> 8) + "." + std::to_string(h.protocol & 0xff) +
                          " predates the payload fields (2.08)");
    const fs::path target = cache_dir.empty() ? fs::path() : fs::path(cache_dir) / "vmlinux" / sha256;
    if (!target.empty())
        if (auto hit = cached(target)) {
            std::error_code ec; // used now: the pruning keeps it
            fs::last_write_time(target, fs::file_time_type::clock::now(), ec);
            return *hit;
        }
    return extract(bytes.subspan(h.payload_offset, h.payload_length), target);
}

nlohmann::json KernelBoot::facts() const {
    nlohmann::json j{{"protocol", protocol}, {"kernel_sha256", kernel_sha256}};
    if (!reason.empty())
        j["reason"] = reason;
    if (protocol == "pvh") {
        j["vmlinux_path"] = pvh.path;
        j["vmlinux_build_id"] = pvh.notes.build_id;
        char entry[32];
        std::snprintf(entry, sizeof entry, "0x%llx", static_cast<unsigned long long>(pvh.notes.pvh_entry));
        j["pvh_entry"] = entry;
        j["vmlinux_extracted"] = pvh.extracted; // false: found in the cache, or booted as given
        if (!pvh.compression.empty())
            j["payload_compression"] = pvh.compression;
    }
    return j;
}

BootMode boot_mode(const std::string& word) {
    switch (firmware_path(word)) {
    case FirmwarePath::ipxe: return BootMode::ipxe;
    case FirmwarePath::uefi: return BootMode::uefi;
    case FirmwarePath::uboot: return BootMode::uboot;
    case FirmwarePath::none: break;
    }
    return word == "pvh" ? BootMode::pvh : word == "bzimage" ? BootMode::bzimage : BootMode::auto_;
}

namespace {

FirmwarePath firmware_of(BootMode mode) {
    return mode == BootMode::ipxe ? FirmwarePath::ipxe
           : mode == BootMode::uefi ? FirmwarePath::uefi
           : mode == BootMode::uboot ? FirmwarePath::uboot
                                     : FirmwarePath::none;
}

} // namespace

Result<KernelBoot> choose_kernel_boot(const std::string& kernel, const std::string& arch, BootMode mode,
                                      const std::string& cache_dir) {
    KernelBoot b;
    b.boot_path = kernel;
    try {
        b.kernel_sha256 = sha256_file(kernel);
    } catch (const std::exception& e) {
        return Error{e.what()};
    }
    if (const FirmwarePath firmware = firmware_of(mode); firmware != FirmwarePath::none) {
        // The firmware loads the file as a board's would: nothing is taken out of it here.
        IB_TRY(check_firmware_kernel(kernel, firmware));
        b.protocol = firmware_path_name(firmware);
        return b;
    }
    if (arch != "x86_64") {
        if (mode == BootMode::pvh)
            return Error{"--boot pvh: PVH is an x86_64 boot protocol, not " + arch + "'s"};
        b.protocol = "image";
        return b;
    }
    b.protocol = "bzimage";
    if (mode == BootMode::bzimage) {
        // Not decompressed, but a cut-off bzImage still fails here rather than in QEMU.
        MappedFile file;
        IB_TRY(file.open(kernel));
        if (has_setup_header(file.bytes()))
            if (auto h = parse_setup_header(file.bytes()); !h)
                return Error{kernel + ": " + h.error().message()};
        b.reason = "--boot bzimage";
        return b;
    }
    auto pvh = pvh_kernel(kernel, b.kernel_sha256, cache_dir);
    if (!pvh)
        return Error{kernel + ": " + pvh.error().message()};
    b.pvh = std::move(pvh.value());
    if (b.pvh.path.empty()) {
        if (mode == BootMode::pvh)
            return Error{"--boot pvh: " + kernel + ": " + b.pvh.reason};
        b.reason = b.pvh.reason;
        return b;
    }
    b.protocol = "pvh";
    b.boot_path = b.pvh.path;
    return b;
}

std::string default_cache_dir() {
    if (const char* c = std::getenv("INITBENCH_CACHE"))
        return c;
    const char* home = std::getenv("HOME");
    return std::string(home ? home : "/tmp") + "/.cache/initbench";
}

} // namespace initbench
