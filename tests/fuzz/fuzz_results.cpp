// libFuzzer target: the results-document reader that `initbench compare` and bisect-step
// trust. Arbitrary bytes must give a RunFile or an error, never a crash, and an error names
// the file it was reading and why.
#include "host/compare/compare.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto r = initbench::parse_results(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    if (!r.ok()) {
        const std::string& message = r.error().message();
        if (message.find("fuzz.json") == std::string::npos || message.size() <= std::string("fuzz.json: ").size())
            std::abort(); // an error that does not name the file or say why
    }
    return 0;
}
