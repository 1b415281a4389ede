// libFuzzer target: the kernel-parameter and profile parser. Input: a command line, then
// (after a \x01 byte) a profile text that every looked-up profile returns. Besides not
// crashing, every error must name its cause: where it was found, what was refused (the key,
// or the word that is not one), and why; its one line must say all three.
#include "common/config.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string in(reinterpret_cast<const char*>(data), size);
    size_t cut = in.find('\x01');
    std::string cmdline = in.substr(0, cut);
    std::string profile = cut == std::string::npos ? "" : in.substr(cut + 1);
    auto lookup = [&](std::string_view name) -> std::optional<std::string> {
        if (name.size() % 3 == 0)
            return std::nullopt; // some profiles are missing
        return profile + "\ninclude = " + std::string(name) + "x\n";
    };
    auto r = initbench::parse_config(cmdline, lookup, {"default", "mm_cid"});
    (void)r.config.to_json().dump();
    for (const auto& e : r.errors) {
        (void)e.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        const std::string line = e.describe();
        if (e.reason.empty() || e.source.empty() || (e.key.empty() && e.value.empty()) ||
            line.find(e.key) == std::string::npos || line.find(e.reason) == std::string::npos)
            std::abort(); // an error that does not say where, what or why
    }
    return 0;
}
