#include "host/image/pack.h"

#include "common/config.h"
#include "common/external_load.h"
#include "common/perf_events.h"
#include "common/text.h"
#include "host/image/cpio_archive.h"
#include "host/image/image_settings.h"
#include "host/image/pack_programs.h"
#include "host/image/settings_check.h"
#include "sys/sys.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace initbench {
namespace fs = std::filesystem;
namespace {

// Appends the file at `path` to `out` (the whole of it, or throws naming the file and errno).
void append_file(std::ostream& out, const std::string& path) {
    const auto text = read_whole_file(path);
    if (!text)
        throw std::runtime_error(text.error().message());
    out << text.value();
}

unsigned file_mode(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0)
        throw std::runtime_error("cannot stat " + p.string() + ": " + std::strerror(errno));
    return (st.st_mode & 0111) ? 0755 : 0644;
}

CpioEntry file_entry(const std::string& guest, const fs::path& local) {
    CpioEntry e;
    e.kind = CpioEntry::Kind::file;
    e.path = guest.substr(1);
    e.mode = file_mode(local);
    e.source = local.string();
    return e;
}


std::string kib(uint64_t bytes) {
    char text[32];
    if (bytes >= (uint64_t(1) << 20))
        std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1 << 20));
    else
        std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024.0);
    return text;
}

// The programs' files, or throws: the image's architecture (or --arch, which must agree).
ProgramPayload packed_programs(const PackOptions& o, const std::vector<ProgramSpec>& specs) {
    if (specs.empty())
        return {};
    const auto arch_of_image = image_arch(o.image);
    if (!o.arch.empty() && arch_of_image && o.arch != *arch_of_image)
        throw std::runtime_error("--arch " + o.arch + ", but " + o.image + " is an " +
                                 *arch_of_image + " image");
    const std::string arch = !o.arch.empty() ? o.arch : arch_of_image.value_or("");
    if (arch.empty())
        throw std::runtime_error("cannot tell the architecture of " + o.image + " (no ELF /init): give --arch");
    return program_payload(specs, arch, o.sysroot);
}


} // namespace

int run_pack(const PackOptions& o) {
    try {
        std::vector<PayloadAdd> adds;
        for (const auto& [option, list] : {std::pair{"--add", &o.adds}, std::pair{"--data", &o.data}})
            for (const auto& text : *list) {
                PayloadAdd add;
                if (std::string why = parse_payload_add(text, add); !why.empty()) {
                    std::fprintf(stderr, "initbench pack: %s %s: %s\n", option, text.c_str(), why.c_str());
                    return 2;
                }
                adds.push_back(std::move(add));
            }
        std::vector<ProgramSpec> specs;
        for (const auto& text : o.programs) {
            ProgramSpec spec;
            if (std::string why = parse_program_spec(text, spec); !why.empty()) {
                std::fprintf(stderr, "initbench pack: --program %s: %s\n", text.c_str(), why.c_str());
                return 2;
            }
            specs.push_back(std::move(spec));
        }
        if (adds.empty() && specs.empty() && o.config.empty()) {
            std::fprintf(stderr, "initbench pack: nothing to add: give --add, --program, --data or --config\n");
            return 2;
        }
        std::optional<std::string> config;
        if (!o.config.empty())
            config = o.config;
        const ProgramPayload programs = packed_programs(o, specs);
        pack_image(o.image, adds, config, o.out, programs.files);
        for (const auto& p : programs.sizes) {
            if (p.dynamic)
                std::printf("%s/%s: %s program + %s in %zu libraries and the loader = %s\n", kPayloadBin,
                            p.name.c_str(), kib(p.program_bytes).c_str(), kib(p.library_bytes).c_str(),
                            p.libraries - 1, kib(p.program_bytes + p.library_bytes).c_str());
            else
                std::printf("%s/%s: %s static program\n", kPayloadBin, p.name.c_str(),
                            kib(p.program_bytes).c_str());
        }
        if (!specs.empty())
            std::printf("programs: %s added, each library once\n", kib(programs.total_bytes).c_str());
        std::printf("%s: %s + %zu payload entries, %s (%s appended)\n", o.out.c_str(), o.image.c_str(),
                    payload_entries(adds, config, programs.files).size(), kib(fs::file_size(o.out)).c_str(),
                    kib(fs::file_size(o.out) - fs::file_size(o.image)).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "initbench pack: %s\n", e.what());
        return 1;
    }
}

std::string parse_payload_add(const std::string& text, PayloadAdd& out) {
    const size_t colon = text.rfind(":/");
    if (colon == std::string::npos || colon == 0)
        return "expected LOCAL:/payload/PATH";
    PayloadAdd add{text.substr(0, colon), text.substr(colon + 1)};
    const std::string prefix = std::string(kPayloadDir) + "/";
    if (!add.guest.starts_with(prefix) || add.guest.size() == prefix.size())
        return "the image path must be under " + prefix;
    for (const auto& part : fs::path(add.guest.substr(1)))
        if (part.empty() || part == "." || part == "..")
            return "the image path must not contain empty, '.' or '..' parts";
    if (add.guest.ends_with("/") || add.guest.find("//") != std::string::npos)
        return "the image path must not contain empty, '.' or '..' parts";
    if (add.guest == kPayloadExperiment)
        return std::string(kPayloadExperiment) + " is written by --config";
    if (!fs::exists(add.local))
        return "no such file or directory: " + add.local;
    out = std::move(add);
    return "";
}

std::vector<CpioEntry> payload_entries(const std::vector<PayloadAdd>& adds,
                                       const std::optional<std::string>& experiment_path,
                                       const std::vector<CpioEntry>& generated) {
    std::vector<CpioEntry> files = generated;
    for (const auto& add : adds) {
        if (fs::is_directory(add.local)) {
            for (const auto& item : fs::recursive_directory_iterator(add.local)) {
                const std::string guest =
                    add.guest + "/" + fs::relative(item.path(), add.local).generic_string();
                if (item.is_regular_file())
                    files.push_back(file_entry(guest, item.path()));
                else if (item.is_directory())
                    files.push_back({CpioEntry::Kind::dir, guest.substr(1), 0755, "", 0, 0, {}});
            }
        } else if (fs::is_regular_file(add.local)) {
            files.push_back(file_entry(add.guest, add.local));
        } else {
            throw std::runtime_error(add.local + " is neither a file nor a directory");
        }
    }
    if (experiment_path) {
        CpioEntry e = file_entry(kPayloadExperiment, *experiment_path);
        e.mode = 0644;
        files.push_back(std::move(e));
    }
    // The kernel creates no missing parent directory: every one gets its own entry.
    std::set<std::string> seen, dirs;
    for (const auto& e : files) {
        if (!seen.insert(e.path).second)
            throw std::runtime_error("/" + e.path + " is added twice");
        for (size_t slash = e.path.find('/'); slash != std::string::npos;
             slash = e.path.find('/', slash + 1))
            dirs.insert(e.path.substr(0, slash));
    }
    for (const auto& d : dirs)
        if (!seen.count(d))
            files.push_back({CpioEntry::Kind::dir, d, 0755, "", 0, 0, {}});
    return files;
}

std::vector<std::string> check_experiment(const std::string& text, const std::string& base_image) {
    std::vector<std::string> problems;
    for (const auto& e : check_settings(base_image, {}, text))
        problems.push_back(e.describe());
    return problems;
}

void pack_image(const std::string& base, const std::vector<PayloadAdd>& adds,
                const std::optional<std::string>& experiment_path, const std::string& out,
                const std::vector<CpioEntry>& generated) {
    if (fs::exists(out) && fs::equivalent(base, out))
        throw std::runtime_error("the output must not be the base image");
    const std::vector<CpioEntry> entries = payload_entries(adds, experiment_path, generated);
    if (experiment_path) {
        std::ostringstream text;
        append_file(text, *experiment_path);
        auto problems = check_experiment(text.str(), base);
        for (auto& missing : missing_programs(image_settings(base, {}, text.str()).config, base, entries))
            problems.push_back(std::move(missing));
        if (!problems.empty()) {
            std::string all;
            for (const auto& p : problems)
                all += "\n  " + p;
            throw std::runtime_error(*experiment_path + ": bad experiment file:" + all);
        }
    }
    const std::string payload = out + ".payload.tmp", whole = out + ".tmp";
    try {
        write_cpio_gz(entries, payload);
        {
            std::ofstream o(whole, std::ios::binary | std::ios::trunc);
            append_file(o, base);
            append_file(o, payload);
            if (!o.flush())
                throw std::runtime_error("cannot write " + whole + ": " + std::strerror(errno));
        }
        fs::remove(payload);
        fs::rename(whole, out);
    } catch (...) {
        // A failed pack writes nothing: no half-written image is mistaken for a good one.
        std::error_code ec;
        fs::remove(payload, ec);
        fs::remove(whole, ec);
        throw;
    }
}

} // namespace initbench
