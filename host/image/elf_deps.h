// What a dynamically linked program needs in a guest that has none of its libraries: the
// shared objects its DT_NEEDED entries name, found recursively the way glibc's dynamic loader
// finds them, and the loader its PT_INTERP names. `initbench pack --program` packs them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

// What the loader reads of an ELF file.
struct ElfFile {
    uint16_t machine = 0;               // e_machine
    bool elf64 = false;                 // ELFCLASS64; nothing below is read otherwise
    std::string interp;                 // PT_INTERP; "" for a static program or a library
    std::vector<std::string> needed;    // DT_NEEDED, in order
    std::vector<std::string> rpath;     // DT_RPATH, split on ':', not expanded
    std::vector<std::string> runpath;   // DT_RUNPATH, likewise
};

// Reads the ELF header, the program headers and the dynamic section of a little-endian ELF
// executable or shared object. Throws std::runtime_error ("PATH: not an ELF file", ...).
ElfFile read_elf(const std::string& path);

// "x86_64", "aarch64", or "e_machine N" for the others.
std::string elf_machine_name(uint16_t machine);
// e_machine of an image architecture ("x86_64", "aarch64"); 0 for an unknown one.
uint16_t arch_machine(const std::string& arch);
// Where the loader of `arch` looks after DT_RPATH and DT_RUNPATH (Debian's multiarch
// directories first), as paths in the guest's root.
std::vector<std::string> default_library_dirs(const std::string& arch);

// `path` (absolute) as seen from inside `root`: symbolic links, absolute ones too, are
// followed without leaving it. With root "" or "/" the path itself.
std::string path_in_root(const std::string& root, const std::string& path);

struct SharedObject {
    std::string name; // as DT_NEEDED or PT_INTERP names it (the basename for the loader)
    std::string path; // the file on the host
};

struct ProgramDeps {
    std::string program;                // the file on the host
    std::optional<SharedObject> loader; // none: a static program
    std::vector<SharedObject> libraries; // in the loader's (breadth-first) order, loader excluded
};

// Resolves every DT_NEEDED of `program` and of the libraries found, de-duplicated by name:
// DT_RPATH (of the object and of those that loaded it, unless it has DT_RUNPATH), then
// DT_RUNPATH, then the default directories of `arch`; $ORIGIN, $LIB and $PLATFORM expanded.
// Files of another class or machine are skipped, as the loader skips them. Absolute paths
// are looked up under `sysroot` ("" for this host), for packing another architecture's
// programs. Throws std::runtime_error: missing or non-ELF program, another architecture,
// a library that is nowhere.
ProgramDeps resolve_program(const std::string& program, const std::string& arch,
                            const std::string& sysroot = "");

} // namespace initbench
