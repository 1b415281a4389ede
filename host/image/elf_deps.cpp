#include "host/image/elf_deps.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <utility>

namespace initbench {
namespace fs = std::filesystem;
namespace {

class Reader {
public:
    explicit Reader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
        if (!in_)
            throw std::runtime_error(path + ": cannot read");
        in_.seekg(0, std::ios::end);
        size_ = static_cast<uint64_t>(in_.tellg());
    }
    uint64_t size() const { return size_; }
    // Bytes [offset, offset + n) or throws: a header pointing past the end is a damaged file.
    std::string read(uint64_t offset, uint64_t n) {
        if (offset > size_ || n > size_ - offset)
            throw std::runtime_error(path_ + ": damaged ELF file (data past its end)");
        std::string out(n, '\0');
        in_.seekg(static_cast<std::streamoff>(offset));
        if (!in_.read(out.data(), static_cast<std::streamsize>(n)))
            throw std::runtime_error(path_ + ": cannot read");
        return out;
    }
    template <typename T> T get(uint64_t offset) {
        T v;
        std::memcpy(&v, read(offset, sizeof v).data(), sizeof v);
        return v;
    }

private:
    std::string path_;
    std::ifstream in_;
    uint64_t size_ = 0;
};

std::vector<std::string> split_path_list(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t colon; (colon = text.find(':', start)) != std::string::npos; start = colon + 1)
        out.push_back(text.substr(start, colon - start));
    out.push_back(text.substr(start));
    std::erase(out, std::string());
    return out;
}

std::string c_string(const std::string& table, uint64_t offset, const std::string& path) {
    if (offset >= table.size())
        throw std::runtime_error(path + ": damaged ELF file (string past its table)");
    return std::string(table.c_str() + offset);
}

std::string multiarch_triple(const std::string& arch) { return arch + "-linux-gnu"; }

// $ORIGIN, $LIB, $PLATFORM in a DT_RPATH or DT_RUNPATH entry ("${NAME}" too).
std::string expand_tokens(std::string dir, const std::string& origin, const std::string& arch) {
    const std::pair<std::string, std::string> tokens[] = {
        {"ORIGIN", origin}, {"LIB", "lib/" + multiarch_triple(arch)}, {"PLATFORM", arch}};
    for (const auto& [token, value] : tokens)
        for (const auto& form : {"${" + token + "}", "$" + token})
            for (size_t at; (at = dir.find(form)) != std::string::npos;)
                dir.replace(at, form.size(), value);
    return dir;
}

// A directory to search: a path in the guest's root, or (from $ORIGIN) on the host.
struct SearchDir {
    std::string path;
    bool in_root = true;
};

struct Pending {
    std::string path; // on the host
    ElfFile elf;
    std::vector<SearchDir> inherited_rpath; // expanded DT_RPATH of those that loaded it
};

} // namespace

namespace {

// What a file that is not ELF needs to be packed: a script runs under the interpreter its
// first line names, which is the program to pack.
std::string not_elf(Reader& r, const std::string& path) {
    const std::string head = r.read(0, std::min<uint64_t>(r.size(), 256));
    if (!head.starts_with("#!"))
        return path + ": not an ELF file";
    std::string line = head.substr(2, head.find('\n') - 2);
    line.erase(0, line.find_first_not_of(" \t"));
    const std::string interpreter = line.substr(0, line.find_first_of(" \t"));
    return path + ": not an ELF file but a script for " + interpreter + ": pack the interpreter with " +
           "--program " + interpreter + " and the script with --data, and run it as /payload/bin/" +
           interpreter.substr(interpreter.rfind('/') + 1) + " SCRIPT";
}

} // namespace

ElfFile read_elf(const std::string& path) {
    Reader r(path);
    if (r.size() < EI_NIDENT + 4 || r.read(0, SELFMAG) != std::string(ELFMAG, SELFMAG))
        throw std::runtime_error(not_elf(r, path));
    const std::string ident = r.read(0, EI_NIDENT);
    if (ident[EI_DATA] != ELFDATA2LSB)
        throw std::runtime_error(path + ": a big-endian ELF file; only little-endian ones are packed");
    ElfFile out;
    out.machine = r.get<uint16_t>(offsetof(Elf64_Ehdr, e_machine)); // the same offset in ELF32
    out.elf64 = ident[EI_CLASS] == ELFCLASS64;
    if (!out.elf64)
        return out; // both image architectures are 64-bit: the caller refuses it by class
    const auto eh = r.get<Elf64_Ehdr>(0);
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
        throw std::runtime_error(path + ": not an executable or shared object");
    if (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr))
        throw std::runtime_error(path + ": damaged ELF file (program header size)");
    std::vector<Elf64_Phdr> loads;
    std::optional<Elf64_Phdr> dynamic;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        const auto ph = r.get<Elf64_Phdr>(eh.e_phoff + uint64_t(i) * sizeof(Elf64_Phdr));
        if (ph.p_type == PT_INTERP)
            out.interp = r.read(ph.p_offset, ph.p_filesz).c_str(); // up to its NUL
        else if (ph.p_type == PT_LOAD)
            loads.push_back(ph);
        else if (ph.p_type == PT_DYNAMIC)
            dynamic = ph;
    }
    if (!dynamic)
        return out;
    // DT_STRTAB is an address: the file offset is found through the segment that loads it.
    auto file_offset = [&](uint64_t vaddr) {
        for (const auto& ph : loads)
            if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz)
                return ph.p_offset + (vaddr - ph.p_vaddr);
        throw std::runtime_error(path + ": damaged ELF file (string table outside the segments)");
    };
    uint64_t strtab = 0, strsz = 0;
    std::vector<uint64_t> needed;
    std::optional<uint64_t> rpath, runpath;
    for (uint64_t at = dynamic->p_offset; at + sizeof(Elf64_Dyn) <= dynamic->p_offset + dynamic->p_filesz;
         at += sizeof(Elf64_Dyn)) {
        const auto d = r.get<Elf64_Dyn>(at);
        if (d.d_tag == DT_NULL)
            break;
        switch (d.d_tag) {
        case DT_STRTAB: strtab = d.d_un.d_ptr; break;
        case DT_STRSZ: strsz = d.d_un.d_val; break;
        case DT_NEEDED: needed.push_back(d.d_un.d_val); break;
        case DT_RPATH: rpath = d.d_un.d_val; break;
        case DT_RUNPATH: runpath = d.d_un.d_val; break;
        default: break;
        }
    }
    if (needed.empty() && !rpath && !runpath)
        return out;
    const std::string table = r.read(file_offset(strtab), strsz);
    for (uint64_t n : needed)
        out.needed.push_back(c_string(table, n, path));
    if (rpath)
        out.rpath = split_path_list(c_string(table, *rpath, path));
    if (runpath)
        out.runpath = split_path_list(c_string(table, *runpath, path));
    return out;
}

std::string elf_machine_name(uint16_t machine) {
    switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    default: return "e_machine " + std::to_string(machine);
    }
}

uint16_t arch_machine(const std::string& arch) {
    return arch == "x86_64" ? EM_X86_64 : arch == "aarch64" ? EM_AARCH64 : 0;
}

std::vector<std::string> default_library_dirs(const std::string& arch) {
    const std::string triple = multiarch_triple(arch);
    return {"/lib/" + triple, "/usr/lib/" + triple, "/lib64", "/usr/lib", "/lib"};
}

std::string path_in_root(const std::string& root, const std::string& path) {
    if (root.empty() || root == "/")
        return path;
    // Walks the path a component at a time so that a link's target is read in the root.
    std::deque<std::string> todo;
    for (const auto& part : fs::path(path).relative_path())
        todo.push_back(part.string());
    fs::path inside = "/";
    for (int links = 0; !todo.empty();) {
        const std::string part = todo.front();
        todo.pop_front();
        if (part.empty() || part == ".")
            continue;
        if (part == "..") {
            inside = inside.parent_path();
            continue;
        }
        const fs::path host = fs::path(root) / (inside / part).relative_path();
        std::error_code ec;
        if (!fs::is_symlink(host, ec)) {
            inside /= part;
            continue;
        }
        if (++links > 40)
            throw std::runtime_error(path + ": too many symbolic links under " + root);
        const fs::path target = fs::read_symlink(host);
        if (target.is_absolute())
            inside = "/";
        std::vector<std::string> parts;
        for (const auto& p : target.relative_path())
            parts.push_back(p.string());
        todo.insert(todo.begin(), parts.begin(), parts.end());
    }
    return (fs::path(root) / inside.relative_path()).string();
}

namespace {

// The loader's search for one program's libraries, in the guest's file system under sysroot.
class LibrarySearch {
public:
    LibrarySearch(std::string program, std::string arch, std::string sysroot)
        : program_(std::move(program)), arch_(std::move(arch)), sysroot_(std::move(sysroot)),
          machine_(arch_machine(arch_)) {
        if (!machine_)
            throw std::runtime_error("unknown architecture " + arch_);
        for (const auto& d : default_library_dirs(arch_))
            defaults_.push_back({d, true});
    }

    bool matches(const ElfFile& e) const { return e.elf64 && e.machine == machine_; }

    static std::string describe(const ElfFile& e) {
        return elf_machine_name(e.machine) + (e.elf64 ? "" : " (32-bit)");
    }

    // The loader PT_INTERP names, read from the sysroot and checked for this machine.
    SharedObject loader(const ElfFile& exe) const {
        const std::string path = path_in_root(sysroot_, exe.interp);
        ElfFile elf;
        try {
            elf = read_elf(path);
        } catch (const std::exception& e) {
            throw std::runtime_error(program_ + ": its loader " + exe.interp + ": " + e.what());
        }
        if (!matches(elf))
            throw std::runtime_error(program_ + ": its loader " + path + " is " + describe(elf));
        return {fs::path(exe.interp).filename().string(), path};
    }

    // Where the loader looks for what `obj` needs: its DT_RPATH and those of the objects that
    // loaded it (unless it has DT_RUNPATH), its DT_RUNPATH, then the defaults.
    std::vector<SearchDir> dirs_for(const Pending& obj, const std::string& origin) const {
        std::vector<SearchDir> dirs;
        if (obj.elf.runpath.empty()) {
            dirs = expand(obj.elf.rpath, origin);
            dirs.insert(dirs.end(), obj.inherited_rpath.begin(), obj.inherited_rpath.end());
        }
        for (const auto& d : expand(obj.elf.runpath, origin))
            dirs.push_back(d);
        dirs.insert(dirs.end(), defaults_.begin(), defaults_.end());
        return dirs;
    }

    // The DT_RPATH that the libraries `obj` loads inherit.
    std::vector<SearchDir> rpath_chain(const Pending& obj, const std::string& origin) const {
        std::vector<SearchDir> chain = expand(obj.elf.rpath, origin);
        chain.insert(chain.end(), obj.inherited_rpath.begin(), obj.inherited_rpath.end());
        return chain;
    }

    // The first file called `name` in `dirs` that is an ELF object of this machine; a file of
    // another class or machine is passed over, as the loader passes it.
    Pending find(const std::string& name, const std::string& needed_by,
                 const std::vector<SearchDir>& dirs) const {
        std::error_code ec;
        for (const auto& dir : dirs) {
            const std::string candidate = host_path(dir, (fs::path(dir.path) / name).string());
            if (!fs::is_regular_file(candidate, ec))
                continue;
            try {
                ElfFile lib = read_elf(candidate);
                if (matches(lib))
                    return Pending{candidate, std::move(lib), {}};
            } catch (const std::exception&) {
                // not a loadable file: the loader goes on to the next directory too
            }
        }
        std::string where;
        for (const auto& d : dirs)
            where += (where.empty() ? "" : ", ") + host_path(d, d.path);
        throw std::runtime_error(program_ + ": library " + name + " (needed by " + needed_by +
                                 ") not found for " + arch_ + " in " + where);
    }

private:
    // Paths from the guest's view are looked up in the sysroot; $ORIGIN ones are host paths.
    std::vector<SearchDir> expand(const std::vector<std::string>& entries,
                                  const std::string& origin) const {
        std::vector<SearchDir> dirs;
        for (const auto& entry : entries) {
            const bool from_origin = entry.find("$ORIGIN") != std::string::npos ||
                                     entry.find("${ORIGIN}") != std::string::npos;
            const std::string dir = expand_tokens(entry, origin, arch_);
            dirs.push_back({dir, !from_origin && dir.starts_with('/')});
        }
        return dirs;
    }

    std::string host_path(const SearchDir& dir, const std::string& path) const {
        return dir.in_root ? path_in_root(sysroot_, path) : path;
    }

    std::string program_, arch_, sysroot_;
    uint16_t machine_;
    std::vector<SearchDir> defaults_;
};

} // namespace

ProgramDeps resolve_program(const std::string& program, const std::string& arch,
                            const std::string& sysroot) {
    const LibrarySearch search(program, arch, sysroot);
    std::error_code ec;
    if (!fs::exists(program, ec))
        throw std::runtime_error(program + ": no such file");
    if (!fs::is_regular_file(program, ec))
        throw std::runtime_error(program + ": not a regular file");
    ProgramDeps out;
    out.program = program;
    const ElfFile exe = read_elf(program);
    if (!search.matches(exe))
        throw std::runtime_error(program + ": built for " + LibrarySearch::describe(exe) +
                                 "; the image is " + arch);
    if (exe.interp.empty()) {
        if (!exe.needed.empty())
            throw std::runtime_error(program + ": needs shared libraries but names no loader "
                                     "(PT_INTERP): a library, not a program?");
        return out; // static
    }
    out.loader = search.loader(exe);

    std::set<std::string> seen{out.loader->name}; // the loader is loaded already, under its name
    std::deque<Pending> todo{{program, exe, {}}};
    // The program's $ORIGIN is where its file really is (the loader reads /proc/self/exe).
    bool is_program = true;
    while (!todo.empty()) {
        Pending obj = std::move(todo.front());
        todo.pop_front();
        const std::string origin =
            (is_program ? fs::weakly_canonical(obj.path) : fs::path(obj.path)).parent_path().string();
        is_program = false;
        const std::vector<SearchDir> dirs = search.dirs_for(obj, origin);
        for (const auto& name : obj.elf.needed) {
            if (name.find('/') != std::string::npos)
                throw std::runtime_error(obj.path + " needs " + name +
                                         " by its path: only libraries found by name are packed");
            if (!seen.insert(name).second)
                continue;
            Pending found = search.find(name, obj.path, dirs);
            found.inherited_rpath = search.rpath_chain(obj, origin);
            out.libraries.push_back({name, found.path});
            todo.push_back(std::move(found));
        }
    }
    return out;
}

} // namespace initbench
