// libFuzzer target: the console-log parser, fed in chunks of a size the input picks. When
// the first byte is odd, every frame's CRC is repaired first, so that the fuzzer gets past
// the framing into the JSON, sequence and run logic. Besides not crashing, every damaged
// line the parser reports must say which line it is and why it was not taken.
#include "common/crc32.h"
#include "host/results/logparse.h"

#include <cstdint>
#include <cstdlib>
#include <string>

static std::string repair_crcs(const std::string& in) {
    std::string out;
    for (size_t start = 0; start <= in.size();) {
        size_t nl = std::min(in.find('\n', start), in.size());
        std::string line = in.substr(start, nl - start);
        size_t at = line.rfind("IB1 ");
        if (at != std::string::npos) {
            size_t sp = line.find(' ', at + 4);
            if (sp != std::string::npos && sp + 10 <= line.size())
                line.replace(sp + 1, 8, initbench::crc32_hex(initbench::crc32(line.substr(sp + 10))));
        }
        out += line;
        if (nl < in.size())
            out += '\n';
        start = nl + 1;
    }
    return out;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string in(reinterpret_cast<const char*>(data), size);
    if (size && (data[0] & 1))
        in = repair_crcs(in);
    initbench::LogParser parser;
    const size_t step = size ? data[size / 2] % 61 + 1 : 1;
    for (size_t i = 0; i < in.size(); i += step)
        parser.feed(std::string_view(in).substr(i, step));
    parser.finish();
    (void)parser.result().summary_json().dump();
    for (const auto& r : parser.result().records)
        (void)r.json.dump();
    const initbench::ParsedLog& log = parser.result();
    auto check = [&](const initbench::DamagedLine& d) {
        if (d.reason.empty() || d.line == 0 || d.line > log.lines || d.excerpt.size() > parser.kMaxExcerpt)
            std::abort(); // a damaged line reported without its place or its reason
    };
    for (const auto& d : log.damaged)
        check(d);
    for (const auto& d : log.after_end)
        check(d);
    if (log.cut_off)
        check(*log.cut_off);
    return 0;
}
