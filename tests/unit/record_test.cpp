#include "common/record.h"

#include <gtest/gtest.h>

#include "common/crc32.h"

namespace initbench {
namespace {

using nlohmann::json;

struct Split {
    uint64_t seq;
    std::string crc, json;
};

Split split(const std::string &line) {
    EXPECT_EQ(line.rfind("IB1 ", 0), 0u) << line;
    EXPECT_EQ(line.back(), '\n');
    const size_t a = line.find(' ', 4), b = line.find(' ', a + 1);
    return {std::stoull(line.substr(4, a - 4)), line.substr(a + 1, b - a - 1),
            line.substr(b + 1, line.size() - b - 2)};
}

TEST(RecordWriter, FramesWithSeqCrcAndVersion) {
    RecordWriter w;
    const Split first = split(w.line({{"type", "header"}}));
    const Split second = split(w.line({{"type", "phase"}, {"v", 7}}));
    EXPECT_EQ(first.seq, 0u);
    EXPECT_EQ(second.seq, 1u);
    EXPECT_EQ(first.crc, crc32_hex(crc32(first.json)));
    EXPECT_EQ(json::parse(first.json), (json{{"type", "header"}, {"v", kSchemaVersion}}));
    EXPECT_EQ(json::parse(second.json)["v"], 7); // an explicit version is kept
    EXPECT_EQ(w.next_seq(), 2u);
}

TEST(RecordWriter, OutputIsSevenBitAndOneLine) {
    RecordWriter w;
    const std::string text = "caf\xC3\xA9 \xF0\x9F\x98\x80 tab\t newline\n bad\xFF";
    const std::string line = w.line({{"type", "warning"}, {"reason", text}});
    for (unsigned char c : line)
        EXPECT_LT(c, 0x80);
    EXPECT_EQ(line.find('\n'), line.size() - 1);
    EXPECT_NE(line.find("\\u00e9"), std::string::npos);
    EXPECT_NE(line.find("\\ufffd"), std::string::npos); // invalid UTF-8 replaced, not thrown
}

TEST(RecordWriter, NeverWritesTheMarkerInsideJson) {
    RecordWriter w;
    const std::string tricky = "console said: IB1 3 deadbeef {} and IB1 again";
    const std::string line = w.line({{"type", "kernel"}, {"IB1 key", tricky}});
    EXPECT_EQ(line.rfind("IB1 "), 0u);
    const json back = json::parse(split(line).json);
    EXPECT_EQ(back["IB1 key"], tricky);
}

TEST(RecordWriter, EndCarriesCountAndDigest) {
    RecordWriter w;
    std::string crcs;
    for (int i = 0; i < 3; ++i)
        crcs += split(w.line({{"type", "phase"}, {"i", i}})).crc;
    const uint32_t digest = w.digest();
    const Split end = split(w.end_line({{"why", "done"}, {"records", 99}, {"type", "x"}}));
    const json j = json::parse(end.json);
    EXPECT_EQ(end.seq, 3u);
    EXPECT_EQ(j["type"], "end");
    EXPECT_EQ(j["records"], 3); // extra cannot override the proof fields
    EXPECT_EQ(j["digest"], crc32_hex(crc32(crcs)));
    EXPECT_EQ(j["why"], "done");
    EXPECT_EQ(digest, crc32(crcs));
}

TEST(RecordWriter, NonObjectBecomesErrorRecord) {
    RecordWriter w;
    const json j = json::parse(split(w.line(json::array({1, 2}))).json);
    EXPECT_EQ(j["type"], "error");
    EXPECT_EQ(j["v"], kSchemaVersion);
}

} // namespace
} // namespace initbench
