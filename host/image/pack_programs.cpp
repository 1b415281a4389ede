#include "host/image/pack_programs.h"

#include "host/image/elf_deps.h"

#include <cctype>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

namespace initbench {
namespace fs = std::filesystem;
namespace {

bool valid_name(const std::string& name) {
    if (name.empty() || name == "." || name == "..")
        return false;
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("._+-", c))
            return false;
    return true;
}

CpioEntry packed_file(const std::string& guest, const std::string& local, unsigned mode) {
    CpioEntry e;
    e.kind = CpioEntry::Kind::file;
    e.path = guest.substr(1);
    e.mode = mode;
    e.source = local;
    return e;
}

bool same_contents(const std::string& a, const std::string& b) {
    if (fs::file_size(a) != fs::file_size(b))
        return false;
    std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
    return std::equal(std::istreambuf_iterator<char>(fa), {}, std::istreambuf_iterator<char>(fb));
}

} // namespace

std::string parse_program_spec(const std::string& text, ProgramSpec& out) {
    ProgramSpec spec{text, ""};
    // A NAME has no '/': so "PATH:NAME" is told apart from a path with a ':' in it.
    if (const size_t colon = text.rfind(':');
        colon != std::string::npos && text.find('/', colon) == std::string::npos) {
        spec.local = text.substr(0, colon);
        spec.name = text.substr(colon + 1);
    } else {
        spec.name = fs::path(text).filename().string();
    }
    if (spec.local.empty())
        return "expected PATH or PATH:NAME";
    if (!valid_name(spec.name))
        return "the name '" + spec.name + "' must be letters, digits, '.', '_', '+' or '-'";
    out = std::move(spec);
    return "";
}

std::string program_wrapper(const std::string& name, const std::string& loader_name) {
    // The loader started as a program finds the libraries in --library-path first. The
    // program's /proc/self/exe is then the loader.
    return "#!/bin/sh\n"
           "# " + name + " with its own loader and libraries (initbench pack --program)\n"
           "exec " + std::string(kPayloadLib) + "/" + loader_name + " --library-path " + kPayloadLib +
           " " + kPayloadLibexec + "/" + name + " \"$@\"\n";
}

ProgramPayload program_payload(const std::vector<ProgramSpec>& programs, const std::string& arch,
                               const std::string& sysroot) {
    ProgramPayload out;
    std::set<std::string> names;
    std::map<std::string, std::string> libraries; // name in /payload/lib -> host file
    for (const auto& spec : programs) {
        if (!names.insert(spec.name).second)
            throw std::runtime_error("two programs are named " + spec.name);
        const ProgramDeps deps = resolve_program(spec.local, arch, sysroot);
        PackedProgramSize size{spec.name, deps.loader.has_value(), fs::file_size(spec.local), 0, 0};
        const std::string bin = std::string(kPayloadBin) + "/" + spec.name;
        if (!deps.loader) {
            out.files.push_back(packed_file(bin, spec.local, 0755));
            out.total_bytes += size.program_bytes;
            out.sizes.push_back(size);
            continue;
        }
        out.files.push_back(
            packed_file(std::string(kPayloadLibexec) + "/" + spec.name, spec.local, 0755));
        CpioEntry wrapper = packed_file(bin, "", 0755);
        wrapper.contents = program_wrapper(spec.name, deps.loader->name);
        out.total_bytes += size.program_bytes + wrapper.contents->size();
        out.files.push_back(std::move(wrapper));

        std::vector<SharedObject> objects = deps.libraries;
        objects.push_back(*deps.loader);
        for (const auto& lib : objects) {
            const uint64_t bytes = fs::file_size(lib.path);
            size.library_bytes += bytes;
            size.libraries++;
            auto [it, added] = libraries.emplace(lib.name, lib.path);
            if (added) {
                // Libraries and the loader are mapped, not executed, but the loader is
                // also run as a program.
                out.files.push_back(packed_file(std::string(kPayloadLib) + "/" + lib.name, lib.path,
                                                lib.name == deps.loader->name ? 0755 : 0644));
                out.total_bytes += bytes;
            } else if (!fs::equivalent(it->second, lib.path) && !same_contents(it->second, lib.path)) {
                throw std::runtime_error("two different files named " + lib.name + ": " + it->second +
                                         " and " + lib.path + " (needed by " + spec.local + ")");
            }
        }
        out.sizes.push_back(size);
    }
    return out;
}

std::optional<std::string> image_arch(const std::string& image) {
    const auto files = read_cpio_files(
        image, [](const std::string& path) { return path == "init" || path == "./init"; },
        sizeof(Elf64_Ehdr));
    if (!files || files->size() != 1)
        return std::nullopt;
    const std::string& header = files->begin()->second;
    if (header.size() < sizeof(Elf64_Ehdr) || header.compare(0, SELFMAG, ELFMAG) != 0)
        return std::nullopt;
    uint16_t machine;
    std::memcpy(&machine, header.data() + offsetof(Elf64_Ehdr, e_machine), sizeof machine);
    const std::string name = elf_machine_name(machine);
    return arch_machine(name) ? std::optional(name) : std::nullopt;
}

} // namespace initbench
