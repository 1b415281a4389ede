#pragma once
// Writer side of the console protocol (docs/protocol.md): frames JSON records as
//   IB1 <seq> <crc8hex> <json>\n
// and keeps the running digest that the end record carries.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace initbench {

// The record protocol version ("v" of every record; docs/protocol.md, docs/schema/).
// 2: the shapes in docs/schema/ are pinned, and every probe that works names its mechanism.
// 3: probe, command and background records carry "metrics" as phase records do, written
// through their declared descriptions (common/record_decls.h, and each probe's bpf/X/X_probe.h).
// Readers (parse, compare) accept kOldestSchemaVersion..kSchemaVersion and refuse others;
// they read versions 1 and 2 through the same descriptions.
constexpr int kSchemaVersion = 3;
constexpr int kOldestSchemaVersion = 1;

// True for a "v" this build can read.
inline bool known_record_version(const nlohmann::json &v) {
    return v.is_number_integer() && v.get<int64_t>() >= kOldestSchemaVersion &&
           v.get<int64_t>() <= kSchemaVersion;
}

// Why a record of version `v` is refused, for the damaged line and the verdict.
std::string unknown_version_reason(const nlohmann::json &v);
constexpr std::string_view kFrameMarker = "IB1 ";

// Serialises a record's JSON exactly as the frame carries it: compact, 7-bit (\uXXXX),
// invalid UTF-8 replaced rather than thrown, and no literal "IB1 " inside (see .cpp).
std::string record_json_text(const nlohmann::json &record);

class RecordWriter {
public:
    // Frames one record and advances seq. Adds "v" if absent; a non-object is replaced by
    // an error record so that the init never has to handle a throw here.
    std::string line(nlohmann::json record);

    // The end record: "type":"end", "records" (= its own seq) and "digest", with `extra`
    // merged in (it cannot override those three). Later lines continue the same seq.
    std::string end_line(nlohmann::json extra = nlohmann::json::object());

    uint64_t next_seq() const { return seq_; }
    // CRC-32 of the <crc> fields written so far, concatenated in seq order.
    uint32_t digest() const { return digest_; }

private:
    std::string frame(const nlohmann::json &record);

    uint64_t seq_ = 0;
    uint32_t digest_ = 0;
};

} // namespace initbench
