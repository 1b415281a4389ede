#include "host/results/logparse.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/crc32.h"
#include "common/record.h"

namespace initbench {
namespace {

using nlohmann::json;

// The lines of one run: header, `phases` phase records, and an end record.
std::vector<std::string> run_lines(int phases, bool with_end = true,
                                   const std::string &run_id = "r1") {
    RecordWriter w;
    std::vector<std::string> lines = {w.line({{"type", "header"}, {"run", run_id}})};
    for (int i = 0; i < phases; ++i)
        lines.push_back(w.line({{"type", "phase"}, {"n", i}}));
    if (with_end)
        lines.push_back(w.end_line());
    return lines;
}

std::string join(const std::vector<std::string> &lines) {
    std::string out;
    for (const auto &l : lines)
        out += l;
    return out;
}

// A frame with a correct CRC around arbitrary JSON text.
std::string frame(uint64_t seq, const std::string &json_text) {
    return "IB1 " + std::to_string(seq) + " " + crc32_hex(crc32(json_text)) + " " + json_text +
           "\n";
}

std::vector<uint64_t> seqs(const ParsedLog &log) {
    std::vector<uint64_t> out;
    for (const auto &r : log.records)
        out.push_back(r.seq);
    return out;
}

TEST(LogParser, RoundTrip) {
    const ParsedLog log = parse_log(join(run_lines(5)));
    EXPECT_EQ(log.status, LogStatus::complete);
    ASSERT_EQ(log.records.size(), 7u);
    EXPECT_EQ(seqs(log), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(log.records[0].json["run"], "r1");
    EXPECT_EQ(log.records[3].json["n"], 2);
    EXPECT_TRUE(log.end.found && log.end.count_ok && log.end.digest_ok);
    EXPECT_EQ(log.end.records, 6u);
    EXPECT_TRUE(log.damaged.empty() && log.missing.empty() && log.kernel_events.empty());
    EXPECT_EQ(log.runs_seen, 1);
    EXPECT_EQ(log.run_kept, 0);
}

TEST(LogParser, ChunkingDoesNotMatter) {
    const std::string text = join(run_lines(3));
    LogParser p;
    for (char c : text)
        p.feed(std::string_view(&c, 1));
    p.finish();
    EXPECT_EQ(p.result().status, LogStatus::complete);
    EXPECT_EQ(p.result().records.size(), 5u);
    EXPECT_EQ(p.result().summary_json(), parse_log(text).summary_json());
}

// A flood read from a file a MiB at a time: records across the pieces' edges, a kernel
// WARN in the chatter, and the same result as the whole text at once.
TEST(LogParser, FileReadInPiecesGivesTheSameResult) {
    std::string text;
    const std::string chatter(200, 'x');
    for (const auto &line : run_lines(40)) {
        for (int i = 0; i < 500; i++) // about 100 KB before each record
            text += "[ 1.0] " + chatter + "\n";
        text += line;
    }
    text.insert(text.size() / 2, "[ 2.0] WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x1/0x2\n");
    ASSERT_GT(text.size(), 3u << 20);
    const auto path = std::filesystem::temp_directory_path() / "initbench-logparse-pieces.log";
    std::ofstream(path, std::ios::binary) << text;
    auto from_file = parse_log_file(path.string());
    std::filesystem::remove(path);
    ASSERT_TRUE(from_file.ok());
    EXPECT_EQ(from_file.value().status, LogStatus::complete);
    EXPECT_EQ(from_file.value().records.size(), 42u);
    EXPECT_EQ(from_file.value().kernel_event_count, 1u);
    EXPECT_EQ(from_file.value().summary_json(), parse_log(text).summary_json());
    EXPECT_FALSE(parse_log_file("/nonexistent/initbench.log").ok());
}

TEST(LogParser, KernelMessageInsideARecordLine) {
    auto lines = run_lines(5);
    std::string &hit = lines[3]; // seq 3
    const size_t mid = hit.find("\"type\":\"ph") + 10;
    hit = hit.substr(0, mid) + "\n[   12.345678] random: crng init done\n" + hit.substr(mid);
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::corrupt);
    ASSERT_EQ(log.damaged.size(), 1u);
    EXPECT_EQ(log.damaged[0].reason, "crc mismatch");
    EXPECT_EQ(log.damaged[0].seq, 3u);
    EXPECT_EQ(log.damaged[0].line, 4u);
    EXPECT_EQ(log.missing, (std::vector<uint64_t>{3}));
    EXPECT_EQ(seqs(log), (std::vector<uint64_t>{0, 1, 2, 4, 5, 6}));
    EXPECT_TRUE(log.end.found);
    EXPECT_FALSE(log.end.count_ok);
}

// The flood's other shape: a kernel message printed in the middle of a record ends the
// line, and the record's rest is the next line, maybe with another message after it. The
// CRC finds both ends, so the record is kept whole, and the messages are still scanned.
TEST(LogParser, RecordSplitByAKernelMessageIsRejoined) {
    auto lines = run_lines(5);
    const std::string phase1 = lines[2], phase3 = lines[4];
    auto split = [](std::string &line, const std::string &at, const std::string &message,
                    const std::string &after = "") {
        const size_t mid = line.find(at);
        line.pop_back();
        line = line.substr(0, mid) + message + "\r\n" + line.substr(mid) + after + "\r\n";
    };
    split(lines[2], "\"type\"", "[    4.169777] initbench-flood 3399 {\"ops\":99999}");
    split(lines[4], "\"v\"", "[    5.2] WARNING: CPU: 1 PID: 48 at fault.c:24 warn_now",
          "[    5.3] initbench-flood 5567 {\"ops\":99999}");
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::complete) << log.summary_json().dump(2);
    EXPECT_EQ(seqs(log), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(log.records[2].json, parse_log(phase1).records[0].json); // seq 2
    EXPECT_EQ(log.records[4].json, parse_log(phase3).records[0].json); // seq 4
    EXPECT_EQ(log.rejoined, 2u);
    EXPECT_EQ(log.summary_json()["counts"]["rejoined"], 2);
    EXPECT_EQ(log.text_after_record, 1u);
    ASSERT_EQ(log.kernel_events.size(), 1u);
    EXPECT_EQ(log.kernel_events[0].kind, "warning");
}

// A split record whose halves do not verify stays damaged: a changed digit, or a rest that
// never came (the next line is another record, which is read as usual).
TEST(LogParser, SplitRecordThatDoesNotVerifyStaysDamaged) {
    auto lines = run_lines(5);
    const size_t mid = lines[2].find("\"type\"");
    std::string changed = lines[2];
    changed[changed.find("\"n\":1") + 4] = '7'; // seq 2 holds n = 1
    lines[2] = changed.substr(0, mid) + "[ 4.1] flood\n" + changed.substr(mid);
    lines[4] = lines[4].substr(0, lines[4].find("\"type\"")) + "[ 5.2] flood\n"; // rest lost
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::corrupt);
    EXPECT_EQ(log.rejoined, 0u);
    ASSERT_EQ(log.damaged.size(), 2u);
    EXPECT_EQ(log.damaged[0].seq, 2u);
    EXPECT_EQ(log.damaged[0].line, 3u);
    EXPECT_EQ(log.damaged[1].seq, 4u);
    EXPECT_EQ(log.damaged[1].line, 6u);
    EXPECT_EQ(seqs(log), (std::vector<uint64_t>{0, 1, 3, 5, 6}));
}

// A kernel message printed between a record and its newline (seen in a boot with a console
// flood: the tty sends the "\r\n" on its own) leaves the record whole: it is kept, and the
// message is still scanned for kernel events.
TEST(LogParser, KernelMessageAfterARecordOnItsLine) {
    auto lines = run_lines(5);
    const std::string phase2 = lines[3];
    auto append = [](std::string &line, const std::string &text) {
        line.pop_back(); // the record's own newline comes after the message
        line += text + "\r\n\r\n";
    };
    append(lines[3], "[    8.882319] initbench-flood 6720 {\"ops\":99999}");
    append(lines[4], "[    8.9] Kernel panic - not syncing: sysrq triggered crash");
    append(lines[5], "[    9.0] quote \" and brace } in the message");
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::complete) << log.summary_json().dump(2);
    EXPECT_EQ(seqs(log), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(log.records[3].json, parse_log(phase2).records[0].json);
    EXPECT_EQ(log.records[3].json["n"], 2);
    EXPECT_TRUE(log.damaged.empty());
    EXPECT_EQ(log.text_after_record, 3u);
    EXPECT_EQ(log.summary_json()["counts"]["text_after_record"], 3);
    ASSERT_EQ(log.kernel_events.size(), 1u);
    EXPECT_EQ(log.kernel_events[0].kind, "panic");
    EXPECT_EQ(log.kernel_events[0].message, "sysrq triggered crash");

    // The same on the last line of a log cut off inside the message.
    std::string cut = join(run_lines(2, /*with_end=*/false));
    cut.pop_back();
    cut += "[    8.8] initbench-fl";
    const ParsedLog cut_log = parse_log(cut);
    EXPECT_EQ(cut_log.status, LogStatus::incomplete);
    EXPECT_EQ(cut_log.records.size(), 3u);
    EXPECT_FALSE(cut_log.cut_off.has_value());
}

// Text after a record does not excuse a change inside it, nor an unclosed object.
TEST(LogParser, TextAfterADamagedRecordIsStillDamage) {
    auto lines = run_lines(3);
    std::string &changed = lines[2]; // {"n":1,...}: change a byte inside, then add text
    changed[changed.find("\"n\":1") + 4] = '7'; // seq 2 holds n = 1
    changed.pop_back();
    changed += "[    1.0] message}\n";
    std::string &unclosed = lines[3]; // the closing brace lost, text after the JSON
    unclosed.erase(unclosed.rfind('}'));
    unclosed += " [    1.1] message\n";
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::corrupt);
    ASSERT_EQ(log.damaged.size(), 2u);
    EXPECT_EQ(log.damaged[0].seq, 2u);
    EXPECT_EQ(log.damaged[1].seq, 3u);
    EXPECT_EQ(log.text_after_record, 0u);
    EXPECT_EQ(seqs(log), (std::vector<uint64_t>{0, 1, 4}));
}

TEST(LogParser, TruncatedLogIsIncomplete) {
    auto lines = run_lines(4, /*with_end=*/false);
    EXPECT_EQ(parse_log(join(lines)).status, LogStatus::incomplete);
    // Cut in the middle of a record: the capture stopped, nothing was damaged.
    std::string cut = join(lines);
    cut.resize(cut.size() - 10);
    const ParsedLog log = parse_log(cut);
    EXPECT_EQ(log.status, LogStatus::incomplete);
    EXPECT_EQ(log.records.size(), 4u);
    ASSERT_TRUE(log.cut_off.has_value());
    EXPECT_EQ(log.cut_off->seq, 4u);
    EXPECT_TRUE(log.missing.empty());
}

TEST(LogParser, ConsoleNoiseIsRemoved) {
    std::string text = "\x1b[0m\x1b]0;title\a[    0.000000] Linux version 6.1\r\n";
    int i = 0;
    for (std::string line : run_lines(3)) {
        line.pop_back();
        const size_t json_at = line.find('{');
        line.insert(json_at + 3, std::string("\0\x1b[1;32m", 8)); // NUL and colour inside the JSON
        text += "2024-05-01T10:00:0" + std::to_string(i++) + " \x1b[33m" + line +
                "\x1b[0m\x1b"
                "7\r\r\n";
    }
    const ParsedLog log = parse_log(text);
    EXPECT_EQ(log.status, LogStatus::complete) << log.summary_json().dump(2);
    EXPECT_EQ(log.records.size(), 5u);
}

std::string lava(const std::string &lvl, const std::string &msg) {
    return R"(- {"dt": "2024-05-01T10:00:00.123456", "lvl": ")" + lvl + R"(", "msg": )" +
           json(msg).dump() + "}\n";
}

TEST(LogParser, LavaYamlLog) {
    std::string text =
        "- {\"dt\": \"2024-05-01T10:00:00\", \"lvl\": \"info\", \"msg\": \"start\"}\n";
    text += lava("debug", "IB1 0 00000000 {\"broken\""); // not target output: ignored
    text +=
        "- {\"dt\": \"2024-05-01T10:00:00\", \"lvl\": \"results\", \"msg\": {\"case\": \"x\"}}\n";
    text += lava("info", "Kernel panic - not syncing: in a dispatcher message");
    for (std::string line : run_lines(3)) {
        line.pop_back();
        text += lava("target", line);
    }
    // YAML's own escapes (\e, \x..) as a YAML dumper may write them.
    text +=
        R"(- {"dt": "2024-05-01T10:00:01", "lvl": "target", "msg": "\e[31m\x5B  1.0\x5D WARNING: CPU: 0 PID: 1 at x\e[0m"})"
        "\n";
    const ParsedLog log = parse_log(text);
    EXPECT_EQ(log.status, LogStatus::complete) << log.summary_json().dump(2);
    EXPECT_EQ(log.records.size(), 5u);
    ASSERT_EQ(log.kernel_events.size(), 1u);
    EXPECT_EQ(log.kernel_events[0].kind, "warning");
    EXPECT_EQ(log.kernel_events[0].text, "[  1.0] WARNING: CPU: 0 PID: 1 at x");
}

TEST(LogParser, EndDigestMismatchIsCorrupt) {
    auto lines = run_lines(2, /*with_end=*/false);
    const json end = {{"v", 1}, {"type", "end"}, {"records", 3}, {"digest", "00000000"}};
    lines.push_back(frame(3, end.dump()));
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::corrupt);
    EXPECT_TRUE(log.end.count_ok);
    EXPECT_FALSE(log.end.digest_ok);
}

TEST(LogParser, EndCountMismatchIsCorrupt) {
    auto lines = run_lines(2, /*with_end=*/false);
    lines.push_back(
        frame(3, json{{"v", 1}, {"type", "end"}, {"records", 4}, {"digest", "x"}}.dump()));
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::corrupt);
    EXPECT_FALSE(log.end.count_ok);
}

// A record that arrived whole but says a version this build cannot read is not taken as
// numbers: it is listed as damaged with the reason, and the log is corrupt (exit 5).
TEST(LogParser, UnknownRecordVersionIsRefused) {
    auto lines = run_lines(2);
    const std::string newer = json{{"v", kSchemaVersion + 1}, {"type", "phase"}, {"n", 1}}.dump();
    lines[2] = frame(2, newer);
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::corrupt);
    ASSERT_EQ(log.damaged.size(), 1u);
    EXPECT_EQ(log.damaged[0].seq, 2u);
    EXPECT_EQ(log.damaged[0].reason, "unknown record version " + std::to_string(kSchemaVersion + 1) +
                                         " (this initbench reads versions 1 to " +
                                         std::to_string(kSchemaVersion) + ")");
    EXPECT_EQ(log.records.size(), 3u); // header, the other phase, end
    for (int known = kOldestSchemaVersion; known <= kSchemaVersion; ++known) {
        auto known_lines = run_lines(2, /*with_end=*/false);
        known_lines[2] = frame(2, json{{"v", known}, {"type", "phase"}, {"n", 1}}.dump());
        const ParsedLog kept = parse_log(join(known_lines));
        EXPECT_EQ(kept.status, LogStatus::incomplete) << "version " << known;
        EXPECT_EQ(kept.records.size(), 3u) << "version " << known;
    }
    for (const json &v : {json(0), json(-1), json(kSchemaVersion + 1)})
        EXPECT_FALSE(known_record_version(v)) << v;
    EXPECT_FALSE(known_record_version(json(1.0))); // not an integer
}

TEST(LogParser, Duplicates) {
    auto lines = run_lines(3);
    lines.insert(lines.begin() + 3, lines[2]); // the same record twice: a harmless repeat
    ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::complete);
    ASSERT_EQ(log.duplicates.size(), 1u);
    EXPECT_EQ(log.duplicates[0].seq, 2u);
    EXPECT_TRUE(log.duplicates[0].same_content);

    lines.insert(lines.begin() + 3, frame(2, R"({"v":1,"type":"phase","n":"other"})"));
    log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::corrupt);
    ASSERT_EQ(log.duplicates.size(), 2u);
    EXPECT_FALSE(log.duplicates[0].same_content);
}

TEST(LogParser, KernelEvents) {
    const std::string text =
        "[    1.000000] WARNING: CPU: 0 PID: 1 at kernel/foo.c:1 foo+0x1/0x2\n"
        "[    2.000000] BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
        "[    2.100000] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
        "[    3.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [init:1]\n"
        "[    4.000000] rcu: INFO: rcu_preempt self-detected stall on CPU\n"
        "[    5.000000] Kernel panic - not syncing: VFS: Unable to mount root fs\n"
        "[    6.000000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100\n"
        "Oopsie is not an oops\n" +
        frame(0, R"({"v":1,"type":"kernel","lines":["BUG: inside a record is not an event"]})");
    const ParsedLog log = parse_log(text);
    std::vector<std::string> kinds;
    for (const auto &e : log.kernel_events)
        kinds.push_back(e.kind);
    EXPECT_EQ(kinds, (std::vector<std::string>{"warning", "bug", "oops", "lockup", "stall",
                                               "panic", "kill_init"}));
    EXPECT_EQ(log.kernel_events[5].message, "VFS: Unable to mount root fs");
    EXPECT_EQ(log.kernel_events[5].line, 6u);
    EXPECT_EQ(log.kernel_events[6].message, "Attempted to kill init! exitcode=0x00000100");
    EXPECT_EQ(log.status, LogStatus::incomplete);
}

TEST(LogParser, PanicBeforeAFrameOnTheSameLine) {
    const std::string text =
        "[ 9.9] Kernel panic - not syncing: oops" + frame(0, R"({"v":1,"type":"header"})");
    const ParsedLog log = parse_log(text);
    EXPECT_EQ(log.records.size(), 1u);
    ASSERT_EQ(log.kernel_events.size(), 1u);
    EXPECT_EQ(log.kernel_events[0].message, "oops");
}

TEST(LogParser, BadFrames) {
    const std::string deep =
        "{\"v\":1,\"type\":\"x\",\"a\":" + std::string(5000, '[') + std::string(5000, ']') + "}";
    const ParsedLog log = parse_log("IB1 x\nIB1 01 00000000 {}\n" + frame(0, "{not json") +
                                    frame(1, R"({"type":"no version"})") + frame(2, deep));
    std::vector<std::string> reasons;
    for (const auto &d : log.damaged)
        reasons.push_back(d.reason.substr(0, 10));
    EXPECT_EQ(reasons, (std::vector<std::string>{"malformed ", "malformed ", "bad json",
                                                 "bad record", "bad json"}));
    EXPECT_EQ(log.status, LogStatus::corrupt);
}

TEST(LogParser, NoRecords) {
    const ParsedLog log = parse_log("[    0.000000] Linux version 6.1\nlogin: ");
    EXPECT_EQ(log.status, LogStatus::no_records);
    EXPECT_EQ(to_string(log.status), "no-records");
    EXPECT_EQ(log.run_kept, -1);
    EXPECT_EQ(parse_log("").status, LogStatus::no_records);
}

TEST(LogParser, GarbageDoesNotCrash) {
    std::mt19937 rng(42);
    std::string garbage(1 << 20, '\0');
    for (char &c : garbage)
        c = char(rng() & 0xFF);
    for (size_t i = 0; i < garbage.size(); i += 4096)
        garbage.replace(i, 4, "IB1 ");
    ParsedLog log = parse_log(garbage);
    EXPECT_NO_THROW(log.summary_json().dump());
    EXPECT_LE(log.damaged.size(), LogParser::kMaxListed);

    // No newline at all: one 1 MB line.
    std::erase(garbage, '\n');
    log = parse_log(garbage + "\n" + join(run_lines(1)));
    EXPECT_EQ(log.records.size(), 3u);
    EXPECT_EQ(log.status, LogStatus::corrupt); // the garbage held a frame marker
}

TEST(LogParser, MutatedLogsDoNotCrash) {
    const std::string good =
        join(run_lines(4)) + "[ 1.0] BUG: x\n" + lava("target", run_lines(1)[0].substr(0, 30));
    std::mt19937 rng(7);
    for (int round = 0; round < 3000; ++round) {
        std::string text = good;
        for (int n = rng() % 8; n >= 0; --n) {
            const size_t at = rng() % text.size();
            switch (rng() % 3) {
            case 0:
                text[at] = char(rng() & 0xFF);
                break;
            case 1:
                text.erase(at, rng() % 16);
                break;
            default:
                text.insert(at, 1, "\n\r\x1b\"\\{}[]0 IB1"[rng() % 15]);
                break;
            }
            if (text.empty())
                text = "x";
        }
        const ParsedLog log = parse_log(text);
        ASSERT_NO_THROW(log.summary_json().dump()) << text;
    }
}

TEST(LogParser, OverlongLineIsCutAndReported) {
    const std::string huge(LogParser::kMaxLine + 1000, 'x');
    LogParser p;
    for (size_t i = 0; i < huge.size(); i += 65536)
        p.feed(std::string_view(huge).substr(i, 65536));
    p.feed("\n" + join(run_lines(1)));
    p.finish();
    const ParsedLog &log = p.result();
    ASSERT_FALSE(log.damaged.empty());
    EXPECT_EQ(log.damaged[0].reason, "line too long");
    EXPECT_EQ(log.damaged[0].line, 1u);
    EXPECT_LE(log.damaged[0].excerpt.size(), LogParser::kMaxExcerpt);
    EXPECT_EQ(log.records.size(), 3u);
    EXPECT_EQ(log.status, LogStatus::corrupt); // the cut line might have held a record
    EXPECT_EQ(log.runs_seen, 1);
}

TEST(LogParser, TwoRunsKeepTheLastComplete) {
    const std::string first = join(run_lines(2, true, "first"));
    ParsedLog log = parse_log(first + join(run_lines(3, true, "second")));
    EXPECT_EQ(log.status, LogStatus::complete);
    EXPECT_EQ(log.runs_seen, 2);
    EXPECT_EQ(log.run_kept, 1);
    EXPECT_EQ(log.records.front().json["run"], "second");
    EXPECT_EQ(log.records.size(), 5u);

    // A log appended to itself: the repeated header still starts a run.
    log = parse_log(first + first);
    EXPECT_EQ(log.runs_seen, 2);
    EXPECT_EQ(log.run_kept, 1);
    EXPECT_TRUE(log.after_end.empty());

    // The second run was cut short (a reboot loop stopped by a timeout).
    log = parse_log(first + join(run_lines(3, false, "second")));
    EXPECT_EQ(log.status, LogStatus::complete);
    EXPECT_EQ(log.run_kept, 0);
    EXPECT_EQ(log.records.front().json["run"], "first");
    EXPECT_EQ(log.run_statuses,
              (std::vector<LogStatus>{LogStatus::complete, LogStatus::incomplete}));
}

TEST(LogParser, RecordsAfterEndAreReported) {
    auto lines = run_lines(2);
    lines.push_back(frame(4, R"({"v":1,"type":"warning","what":"late"})"));
    const ParsedLog log = parse_log(join(lines));
    EXPECT_EQ(log.status, LogStatus::complete);
    ASSERT_EQ(log.after_end.size(), 1u);
    EXPECT_EQ(log.after_end[0].seq, 4u);
}

TEST(LogParser, SummaryJson) {
    auto lines = run_lines(3);
    lines.erase(lines.begin() + 2);
    const json s = parse_log(join(lines) + "[ 1.0] Kernel panic - not syncing: x\n").summary_json();
    EXPECT_EQ(s["status"], "corrupt");
    EXPECT_EQ(s["missing"], json::array({2}));
    EXPECT_EQ(s["counts"]["records"], 4);
    EXPECT_EQ(s["counts"]["kernel_events"], 1);
    EXPECT_EQ(s["kernel_events"][0]["kind"], "panic");
    EXPECT_EQ(s["end"]["found"], true);
}

} // namespace
} // namespace initbench
