// libFuzzer target: the results-document reader that `initbench compare` and bisect-step
// trust. Arbitrary bytes must give a RunFile or an error, never a crash.
#include "host/compare/compare.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto r = initbench::parse_results(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    (void)r.ok();
    return 0;
}
