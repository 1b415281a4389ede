#include "common/record.h"

#include "common/crc32.h"

namespace initbench {

std::string record_json_text(const nlohmann::json &record) {
    std::string text =
        record.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
    // The host looks for the last "IB1 " on a line, so the JSON must never contain one.
    // Outside strings JSON has no such letters, so this only rewrites string contents,
    // and "\u0020" decodes to the same space.
    for (size_t pos = 0; (pos = text.find(kFrameMarker, pos)) != std::string::npos;)
        text.replace(pos + 3, 1, "\\u0020");
    return text;
}

std::string unknown_version_reason(const nlohmann::json &v) {
    return "unknown record version " + v.dump() + " (this initbench reads versions " +
           std::to_string(kOldestSchemaVersion) + " to " + std::to_string(kSchemaVersion) + ")";
}

std::string RecordWriter::line(nlohmann::json record) {
    if (!record.is_object())
        record = {{"type", "error"}, {"what", "record"}, {"reason", "record is not a JSON object"}};
    if (!record.contains("v"))
        record["v"] = kSchemaVersion;
    return frame(record);
}

std::string RecordWriter::end_line(nlohmann::json extra) {
    nlohmann::json end = extra.is_object() ? std::move(extra) : nlohmann::json::object();
    end["type"] = "end";
    end["records"] = seq_;
    end["digest"] = crc32_hex(digest_);
    return line(std::move(end));
}

std::string RecordWriter::frame(const nlohmann::json &record) {
    const std::string json = record_json_text(record);
    const std::string crc = crc32_hex(crc32(json));
    digest_ = crc32(crc, digest_);
    return std::string(kFrameMarker) + std::to_string(seq_++) + ' ' + crc + ' ' + json + '\n';
}

} // namespace initbench
