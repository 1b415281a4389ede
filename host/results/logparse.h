#pragma once
// Host side of the console protocol (docs/protocol.md): turns a raw console log — serial
// capture, LAVA YAML log, anything with lines — into the records that arrived whole, the
// damage, and the verdict. Never throws out of its API and bounds memory per line: its
// input is whatever came off a wire.

#include "common/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace initbench {

enum class LogStatus { complete, incomplete, corrupt, no_records };
std::string_view to_string(LogStatus status); // "complete", ..., "no-records"

struct LogRecord {
    uint64_t seq = 0;
    uint64_t line = 0; // 1-based line in the log
    nlohmann::json json;
};

struct DamagedLine {
    uint64_t line = 0;
    std::string reason;          // "crc mismatch", "bad json", "malformed frame", ...
    std::string excerpt;         // <= kMaxExcerpt bytes, made 7-bit printable
    std::optional<uint64_t> seq; // from the frame header, when it was readable
};

struct DuplicateSeq {
    uint64_t seq = 0;
    uint64_t line = 0;         // where the second copy was
    bool same_content = false; // a harmless repeat; a different one is corruption
};

struct KernelEvent {
    std::string kind;    // one of kKernelEventKinds (common/kernel_events.h)
    std::string message; // for panics: the text after "not syncing: "
    std::string text;    // the line, <= kMaxExcerpt bytes
    uint64_t line = 0;
};

struct EndInfo {
    bool found = false;
    uint64_t seq = 0;
    uint64_t line = 0;
    std::optional<uint64_t> records; // as claimed by the end record
    std::string digest;              // as claimed by the end record
    bool count_ok = false;           // records == its seq and every earlier seq arrived
    bool digest_ok = false;          // digest matches the <crc> fields that arrived
};

struct ParsedLog {
    LogStatus status = LogStatus::no_records;
    std::vector<LogRecord> records;   // of the kept run, in seq order (end included)
    std::vector<DamagedLine> damaged; // of the kept run
    std::vector<uint64_t> missing;    // first kMaxListed missing seqs of the kept run
    uint64_t missing_count = 0;       // all of them
    std::vector<DuplicateSeq> duplicates;
    std::vector<DamagedLine> after_end; // frames after the kept run's end record
    // The log's unterminated last line, when its frame did not verify: the capture was cut
    // off there (a timeout, say), which makes the log incomplete rather than corrupt.
    std::optional<DamagedLine> cut_off;
    uint64_t unlisted = 0; // entries left off the capped lists above
    EndInfo end;
    // A log may hold several runs (reboots, appended logs). A run starts at a seq-0 header;
    // the last complete run is kept, else the last run.
    int runs_seen = 0;
    int run_kept = -1; // 0-based; -1 when there is none
    std::vector<LogStatus> run_statuses;
    uint64_t first_line = 0, last_line = 0; // lines spanned by the kept run's frames
    std::vector<KernelEvent> kernel_events; // whole log, first kMaxListed
    uint64_t kernel_event_count = 0;
    // Records that arrived whole with console text after them on the same line (a kernel
    // message printed before the record's newline); kept, since their CRC verified.
    uint64_t text_after_record = 0;
    // Records split by a kernel message printed in their middle, whose two halves (the
    // first line up to the message, and the next line) verify against the record's CRC.
    uint64_t rejoined = 0;
    uint64_t lines = 0;

    nlohmann::json summary_json() const;
};

class LogParser {
public:
    static constexpr size_t kMaxLine = 4u << 20; // longer lines are cut and reported
    static constexpr size_t kMaxExcerpt = 200;
    static constexpr size_t kMaxListed = 1000; // caps every per-line list
    static constexpr size_t kMaxRejoin = 256u << 10; // longer split records stay damaged
    static constexpr size_t kMaxRejoinEnds = 64;   // '}' of the next line tried as the end

    LogParser();
    ~LogParser();
    LogParser(const LogParser &) = delete;
    LogParser &operator=(const LogParser &) = delete;

    // Raw bytes in any chunking. Ignored after finish().
    void feed(std::string_view bytes);
    // Ends the last (unterminated) line and computes the result.
    void finish();
    const ParsedLog &result() const { return result_; }

    struct Run; // per-run state, defined in the .cpp

private:
    void append(std::string_view part);
    void end_line();
    void process(std::string_view raw);
    void console_line(std::string_view text);
    bool frame(std::string_view text);
    void damage(std::string_view text, std::string reason, std::optional<uint64_t> seq = {});
    void accept(uint64_t seq, std::string crc, std::string_view text, nlohmann::json json);
    void scan_kernel(std::string_view text);
    bool rejoin(std::string_view next);
    void flush_pending();
    void close_run();
    void start_run();

    std::string line_;
    bool overlong_ = false;
    bool finished_ = false;
    bool unterminated_ = false; // processing a last line that had no newline
    uint64_t line_no_ = 0;
    // A frame whose CRC failed, held for one line: a kernel message may have split it.
    struct Pending {
        std::string text; // from the frame marker
        uint64_t line;
    };
    std::optional<Pending> pending_;
    std::unique_ptr<Run> cur_;  // the run being read
    std::unique_ptr<Run> kept_; // the last complete run before it, if any
    ParsedLog result_;
};

// Convenience: feed + finish.
ParsedLog parse_log(std::string_view whole);
// The same, read from a file a piece at a time: a console flood of any size is parsed in
// the memory of its records, not of its bytes. An unreadable file is an error.
Result<ParsedLog> parse_log_file(const std::string& path);

} // namespace initbench
