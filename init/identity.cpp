#include "init/identity.h"

#include "bpf/core/kernel_symbols.h"
#include "common/text.h"
#include "sys/sys.h"

#include <cstdint>
#include <cstring>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

namespace initbench {


std::string build_id_from_notes(std::string_view notes) {
    constexpr uint32_t kNtGnuBuildId = 3;
    auto align4 = [](size_t n) { return (n + 3) & ~size_t(3); };
    size_t pos = 0;
    while (pos + 12 <= notes.size()) {
        uint32_t namesz, descsz, type;
        std::memcpy(&namesz, notes.data() + pos, 4);
        std::memcpy(&descsz, notes.data() + pos + 4, 4);
        std::memcpy(&type, notes.data() + pos + 8, 4);
        size_t name_at = pos + 12;
        size_t desc_at = name_at + align4(namesz);
        if (namesz > notes.size() || descsz > notes.size() || desc_at + descsz > notes.size())
            break;
        if (type == kNtGnuBuildId && namesz == 4 && notes.substr(name_at, 3) == "GNU")
            return to_hex({reinterpret_cast<const unsigned char*>(notes.data() + desc_at), descsz});
        pos = desc_at + align4(descsz);
    }
    return {};
}

// getrandom() without blocking (the pool may not be ready this early). Where it cannot
// answer, AT_RANDOM is mixed with the clock — never printed raw: libc seeds the stack
// canary from those bytes.
std::string random_run_id() {
    unsigned char id[16];
    if (::getrandom(id, sizeof id, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof id))
        return to_hex(id);
    uint64_t words[2] = {0, 0};
    if (const auto* seed = reinterpret_cast<const unsigned char*>(getauxval(AT_RANDOM)))
        std::memcpy(words, seed, sizeof words);
    timespec ts{};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    uint64_t x = words[0] ^ (words[1] * 0x9e3779b97f4a7c15ull) ^ static_cast<uint64_t>(ts.tv_nsec);
    for (int i = 0; i < 2; i++) { // splitmix64: one-way enough to hide the seed bytes
        x += 0x9e3779b97f4a7c15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        std::memcpy(id + 8 * i, &z, 8);
    }
    return to_hex(id);
}

// x86 names the model; arm64 has only implementer and part numbers.
static std::string cpu_model() {
    std::string implementer, part;
    const std::string text = read_file("/proc/cpuinfo").value_or("");
    for (auto line : split_lines(text)) {
        auto colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        auto key = trim(line.substr(0, colon));
        auto value = std::string(trim(line.substr(colon + 1)));
        if (key == "model name")
            return value;
        if (key == "CPU implementer" && implementer.empty())
            implementer = value;
        if (key == "CPU part" && part.empty())
            part = value;
    }
    return implementer.empty() ? std::string{} : "implementer " + implementer + " part " + part;
}

nlohmann::json kernel_identity(double init_start_uptime) {
    utsname uts{};
    ::uname(&uts);
    struct sysinfo si {};
    ::sysinfo(&si);
    nlohmann::json id;
    id["release"] = uts.release;
    id["version"] = uts.version;
    id["machine"] = uts.machine;
    auto notes = read_file("/sys/kernel/notes");
    id["build_id"] = notes ? build_id_from_notes(notes.value()) : "";
    id["cmdline"] = std::string(trim(read_file("/proc/cmdline").value_or("")));
    id["cpu_model"] = cpu_model();
    id["cpus_online"] = ::sysconf(_SC_NPROCESSORS_ONLN);
    id["memory_mb"] = static_cast<uint64_t>(si.totalram) * si.mem_unit / (1024 * 1024);
    id["btf"] = kernel_has_btf();
    id["uptime_at_init_s"] = init_start_uptime;
    return id;
}

} // namespace initbench
