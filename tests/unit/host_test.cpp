// Unit tests of the host CLI's results: verdicts (judge), the results document, the human
// summary and the environment fingerprint. No QEMU and no kernel needed.
#include "common/crc32.h"
#include "common/record.h"
#include "host/results/environment.h"
#include "host/base/hash.h"
#include "host/base/process.h"
#include "host/results/logparse.h"
#include "host/results/results.h"

#include <map>

#include "tests/unit/temp_dir.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

using nlohmann::json;
using End = ChildOutcome::End;

// ---- results: judge(), results_document(), human_summary() --------------------------

const json kHeader = {{"type", "header"},
                      {"run_id", "0123abcd"},
                      {"kernel", {{"release", "6.1.0-99-test"}, {"build_id", "feedface"}}},
                      {"config", {{"values", {{"profile", "smoke"}}}}}};

json phase(const std::string& name) {
    return {{"type", "phase"}, {"phase", name}, {"round", 0},
            {"metrics", {{"ops_per_s", {{"value", 42.5}, {"unit", "forks/s"}}}}}};
}

// A run as init writes it: header, one record per phase, `extra` records, then (optionally)
// the end record with `end_status`.
std::string run_log(const std::vector<json>& extra = {}, const char* end_status = "ok", bool with_end = true) {
    RecordWriter w;
    std::string log = "[    0.000000] Linux version 6.1.0-99-test\n" + w.line(kHeader);
    for (const char* name : {"idle", "fork"})
        log += w.line(phase(name));
    for (const auto& r : extra)
        log += w.line(r);
    if (with_end)
        log += w.end_line({{"status", end_status}});
    return log + "reboot: Power down\n";
}

ChildOutcome child(End end, int exit_code = 0) {
    ChildOutcome c;
    c.end = end;
    c.exit_code = exit_code;
    return c;
}

const json kError = {{"type", "error"}, {"what", "probe funclat"}, {"reason", "attach failed"}};

// A one-byte change inside the JSON of the second record keeps the frame readable but
// breaks its CRC.
std::string corrupted(std::string log) {
    size_t at = log.find("\"idle\"");
    log[at + 1] = 'I';
    return log;
}

struct JudgeCase {
    const char* name;
    std::string log;
    std::optional<ChildOutcome> child;
    LogStatus expect_status; // of the parsed log: guards that the input means what we think
    int exit_code;
    const char* verdict;
};

TEST(Judge, EveryVerdict) {
    const std::string panic = "[    3.1] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100\n";
    ChildOutcome spawn = child(End::spawn_failed, -1);
    spawn.error = "qemu-system-x86_64: No such file or directory";
    ChildOutcome interrupted = child(End::interrupted, -1);
    interrupted.term_signal = SIGINT;
    // QEMU itself killed while we ran it: by SIGKILL, or by a SIGTERM that QEMU takes by
    // exiting with status 0 and a line on stderr; or crashed.
    ChildOutcome qemu_killed = child(End::exited, -1);
    qemu_killed.term_signal = SIGKILL;
    ChildOutcome qemu_termed = child(End::exited, 0);
    qemu_termed.stderr_text = "qemu-system-x86_64: terminating on signal 15 from pid 4242 (kill)\n";
    ChildOutcome qemu_crashed = child(End::exited, -1);
    qemu_crashed.term_signal = SIGSEGV;

    const std::vector<JudgeCase> cases = {
        {"complete", run_log(), std::nullopt, LogStatus::complete, kExitOk, "ok"},
        {"complete, QEMU exited", run_log(), child(End::exited), LogStatus::complete, kExitOk, "ok"},
        {"error record", run_log({kError}), std::nullopt, LogStatus::complete, kExitErrors, "errors"},
        {"end status error", run_log({}, "error"), std::nullopt, LogStatus::complete, kExitErrors, "errors"},
        {"no records", "Linux version 6.1\nno init found\n", std::nullopt, LogStatus::no_records,
         kExitBootFailure, "boot-failure"},
        {"empty log", "", std::nullopt, LogStatus::no_records, kExitBootFailure, "boot-failure"},
        {"QEMU did not start", "", spawn, LogStatus::no_records, kExitBootFailure, "boot-failure"},
        {"panic after records", run_log({}, "ok", false) + panic, std::nullopt, LogStatus::incomplete,
         kExitBootFailure, "boot-failure"},
        {"panic, complete records", panic + run_log(), std::nullopt, LogStatus::complete, kExitBootFailure,
         "boot-failure"},
        {"host timeout", run_log({}, "ok", false), child(End::timeout, -1), LogStatus::incomplete, kExitTimeout,
         "timeout"},
        {"host timeout before any record", "Linux version 6.1\n", child(End::timeout, -1), LogStatus::no_records,
         kExitTimeout, "timeout"},
        {"panic beats host timeout", "Linux version 6.1\n" + panic, child(End::timeout, -1), LogStatus::no_records,
         kExitBootFailure, "boot-failure"},
        {"guest watchdog", run_log({kError}, "timeout"), child(End::exited), LogStatus::complete, kExitTimeout,
         "timeout"},
        {"incomplete", run_log({}, "ok", false), std::nullopt, LogStatus::incomplete, kExitBadOutput,
         "incomplete"},
        {"incomplete, QEMU exited", run_log({}, "ok", false), child(End::exited), LogStatus::incomplete,
         kExitBadOutput, "incomplete"},
        {"crc mismatch", corrupted(run_log()), std::nullopt, LogStatus::corrupt, kExitBadOutput, "corrupt"},
        {"interrupted", run_log({}, "ok", false), interrupted, LogStatus::incomplete, kExitInterrupted,
         "interrupted"},
        {"interrupted beats complete", run_log(), interrupted, LogStatus::complete, kExitInterrupted,
         "interrupted"},
        {"QEMU SIGKILLed from outside", run_log({}, "ok", false), qemu_killed, LogStatus::incomplete,
         kExitInterrupted, "interrupted"},
        {"QEMU SIGTERMed from outside", run_log({}, "ok", false), qemu_termed, LogStatus::incomplete,
         kExitInterrupted, "interrupted"},
        {"QEMU killed before any record", "", qemu_killed, LogStatus::no_records, kExitInterrupted,
         "interrupted"},
        {"QEMU killed after the end record", run_log(), qemu_killed, LogStatus::complete, kExitOk, "ok"},
        {"QEMU crashed", run_log({}, "ok", false), qemu_crashed, LogStatus::incomplete, kExitBadOutput,
         "incomplete"},
        {"QEMU crashed before any record", "", qemu_crashed, LogStatus::no_records, kExitBootFailure,
         "boot-failure"},
        {"panic beats QEMU killed", run_log({}, "ok", false) + panic, qemu_killed, LogStatus::incomplete,
         kExitBootFailure, "boot-failure"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const ParsedLog log = parse_log(c.log);
        ASSERT_EQ(to_string(log.status), to_string(c.expect_status));
        const Verdict v = judge(log, c.child);
        EXPECT_EQ(v.exit_code, c.exit_code);
        EXPECT_EQ(v.name, c.verdict);
        EXPECT_FALSE(v.reason.empty());
    }
}

TEST(Judge, ReasonsSayWhy) {
    ChildOutcome spawn = child(End::spawn_failed, -1);
    spawn.error = "exec qemu-system-x86_64: No such file or directory";
    EXPECT_TRUE(contains(judge(parse_log(""), spawn).reason, "No such file"));

    const std::string panic = "Kernel panic - not syncing: VFS: Unable to mount root fs\n";
    EXPECT_TRUE(contains(judge(parse_log(panic), std::nullopt).reason, "Unable to mount root fs"));

    ChildOutcome failed = child(End::exited, 1);
    failed.stderr_text = "qemu: could not load kernel";
    EXPECT_TRUE(contains(judge(parse_log("garbage\n"), failed).reason, "could not load kernel"));

    ChildOutcome interrupted = child(End::interrupted, -1);
    interrupted.term_signal = SIGTERM;
    EXPECT_TRUE(contains(judge(parse_log(run_log()), interrupted).reason, std::to_string(SIGTERM)));

    // A host timeout says whether any record had arrived, so a hung boot and a slow run differ.
    EXPECT_TRUE(contains(judge(parse_log(""), child(End::timeout, -1)).reason, "no initbench record"));
    EXPECT_TRUE(contains(judge(parse_log(run_log({}, "ok", false)), child(End::timeout, -1)).reason,
                         "partial output kept"));

    ChildOutcome killed = child(End::exited, -1);
    killed.term_signal = SIGKILL;
    const std::string killed_why = judge(parse_log(run_log({}, "ok", false)), killed).reason;
    EXPECT_TRUE(contains(killed_why, "SIGKILL")) << killed_why;
    EXPECT_TRUE(contains(killed_why, "from outside")) << killed_why;
    EXPECT_TRUE(contains(killed_why, "partial output kept")) << killed_why;

    ChildOutcome termed = child(End::exited, 0);
    termed.stderr_text = "qemu-system-x86_64: terminating on signal 15 from pid 4242 (kill)\n";
    EXPECT_TRUE(contains(judge(parse_log(run_log({}, "ok", false)), termed).reason, "signal 15 from pid 4242"));

    ChildOutcome crashed = child(End::exited, -1);
    crashed.term_signal = SIGSEGV;
    crashed.stderr_text = "qemu: fatal: something\n";
    const std::string crashed_why = judge(parse_log(run_log({}, "ok", false)), crashed).reason;
    EXPECT_TRUE(contains(crashed_why, "SIGSEGV")) << crashed_why;
    EXPECT_TRUE(contains(crashed_why, "crashed")) << crashed_why;
    EXPECT_TRUE(contains(crashed_why, "qemu: fatal: something")) << crashed_why;
}

// Records that arrive whole are still input from a wire (another initbench version, a
// hand-made log): the host must neither crash nor throw on fields of unexpected shape.
const std::vector<json> kOddRecords = {
    {{"type", "header"}, {"run_id", "r"}},                       // no "kernel"
    {{"type", "header"}, {"kernel", "6.1"}},                     // "kernel" not an object
    {{"type", "header"}, {"kernel", {{"release", 5}}}},
    {{"type", "phase"}, {"phase", "idle"}, {"round", "1"}},
    {{"type", "phase"}, {"phase", "idle"}, {"metrics", {{"ops", 3}}}},
    {{"type", "probe"}, {"probe", "funclat"}, {"supported", true}, {"avg", "n/a"}},
    {{"type", "error"}, {"what", 1}, {"reason", nullptr}},
};

// A newer guest's records: corrupt output (exit 5), and the reason says why and what to do.
TEST(Judge, UnknownRecordVersionSaysSo) {
    std::string log = run_log();
    const std::string v = "\"v\":" + std::to_string(kSchemaVersion);
    const size_t at = log.find("\"idle\"");
    ASSERT_NE(at, std::string::npos);
    // Re-frame the idle phase record as version kSchemaVersion + 1, with a CRC that verifies.
    const size_t line_start = log.rfind("IB1 ", at), line_end = log.find('\n', at);
    std::string json_text = log.substr(log.find('{', line_start), line_end - log.find('{', line_start));
    json_text.replace(json_text.find(v), v.size(), "\"v\":" + std::to_string(kSchemaVersion + 1));
    log.replace(line_start, line_end - line_start, "IB1 1 " + crc32_hex(crc32(json_text)) + " " + json_text);
    const ParsedLog parsed = parse_log(log);
    ASSERT_EQ(parsed.status, LogStatus::corrupt);
    const Verdict verdict = judge(parsed, std::nullopt);
    EXPECT_EQ(verdict.exit_code, kExitBadOutput);
    EXPECT_EQ(verdict.name, "corrupt");
    EXPECT_TRUE(contains(verdict.reason, "1 record(s) of an unknown version")) << verdict.reason;
    EXPECT_TRUE(contains(verdict.reason, "unknown record version " + std::to_string(kSchemaVersion + 1)))
        << verdict.reason;
}

// judge() and human_summary() read records that came off a wire: odd types must not throw.
TEST(Judge, OddEndStatusDoesNotThrow) {
    for (const json& status : {json(7), json(nullptr), json::array()}) {
        SCOPED_TRACE(status.dump());
        RecordWriter w;
        std::string text = w.line(kHeader); // two statements: the order of + is unspecified
        text += w.end_line({{"status", status}});
        const ParsedLog log = parse_log(text);
        ASSERT_EQ(log.status, LogStatus::complete);
        EXPECT_NO_THROW(judge(log, std::nullopt));
    }
}

TEST(HumanSummary, OddRecordsDoNotThrow) {
    for (const json& odd : kOddRecords) {
        SCOPED_TRACE(odd.dump());
        RecordWriter w;
        std::string text = w.line(odd);
        text += w.end_line();
        const ParsedLog log = parse_log(text);
        ASSERT_EQ(log.status, LogStatus::complete);
        EXPECT_NO_THROW(human_summary(log, Verdict{kExitOk, "ok", "complete"}));
    }
}

TEST(ResultsDocument, CarriesRecordsVerdictLogAndHost) {
    const ParsedLog log = parse_log(run_log({kError}));
    const Verdict v = judge(log, std::nullopt);
    const json host = {{"source", "console.log"}, {"qemu", {{"accel", "tcg"}}}};
    const json doc = results_document(log, v, host);

    EXPECT_EQ(doc["verdict"], "errors");
    EXPECT_EQ(doc["exit_code"], kExitErrors);
    EXPECT_EQ(doc["reason"], v.reason);
    EXPECT_EQ(doc["host"], host);
    EXPECT_EQ(doc["log"], log.summary_json());
    EXPECT_EQ(doc["log"]["status"], "complete");

    ASSERT_TRUE(doc["records"].is_array());
    std::vector<std::string> types;
    for (const auto& r : doc["records"])
        types.push_back(r["type"]);
    EXPECT_EQ(types, (std::vector<std::string>{"header", "phase", "phase", "error", "end"}));
    EXPECT_EQ(doc["records"][1]["phase"], "idle");
    EXPECT_EQ(doc["records"][2]["phase"], "fork");
    EXPECT_EQ(doc["records"][0], log.records[0].json);
}

TEST(ResultsDocument, EmptyLog) {
    const ParsedLog log = parse_log("");
    const json doc = results_document(log, judge(log, std::nullopt), json::object());
    EXPECT_EQ(doc["verdict"], "boot-failure");
    EXPECT_EQ(doc["exit_code"], kExitBootFailure);
    EXPECT_EQ(doc["records"], json::array());
    EXPECT_EQ(doc["log"]["status"], "no-records");
}

// ---- the environment fingerprint -----------------------------------------------------

TEST(Environment, QemuVersionFromItsBanner) {
    json q = qemu_version_facts("QEMU emulator version 7.2.17 (Debian 1:7.2+dfsg-7+deb12u13)\n"
                                "Copyright (c) 2003-2022 Fabrice Bellard and the QEMU Project developers\n");
    EXPECT_EQ(q["version"], "7.2.17");
    EXPECT_EQ(q["banner"], "QEMU emulator version 7.2.17 (Debian 1:7.2+dfsg-7+deb12u13)");
    EXPECT_EQ(qemu_version_facts("QEMU emulator version 8.2.2\r\n")["version"], "8.2.2");
    EXPECT_EQ(qemu_version_facts(""), json::object());
    EXPECT_EQ(qemu_version_facts("exec qemu-system-x86_64: No such file or directory\n"), json::object());
}

TEST(Environment, CpuModelOfX86AndArm64) {
    EXPECT_EQ(cpu_model("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"
                        "\nprocessor\t: 1\nmodel name\t: other\n"),
              "Intel(R) Xeon(R) CPU @ 2.20GHz");
    EXPECT_EQ(cpu_model("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
                        "CPU part\t: 0xd0c\n"),
              "implementer 0x41 part 0xd0c");
    EXPECT_EQ(cpu_model("processor : 0\n"), "");
}

TEST(Environment, CliBuildHasVersionAndCommit) {
    json b = cli_build_facts();
    EXPECT_FALSE(b["version"].get<std::string>().empty());
    EXPECT_FALSE(b["commit"].get<std::string>().empty()) << "a commit, or \"unknown\" outside git";
    EXPECT_EQ(parse_environment(), json({{"initbench", b}}));
}

// run's fingerprint: QEMU asked once, the host, the .config's SHA-256.
TEST(Environment, RunEnvironmentAsksQemuOnceAndHashesTheConfig) {
    TempDir dir;
    const std::string count = dir / "count";
    const std::string qemu = dir.file("qemu-system-test", "#!/bin/sh\necho x >> " + count +
                                                           "\necho 'QEMU emulator version 9.1.0 (test build)'\n");
    ASSERT_EQ(::chmod(qemu.c_str(), 0755), 0);
    const std::string config = dir.file("config", "CONFIG_X=y\n");
    json env = run_environment(qemu, config);
    EXPECT_EQ(env["qemu"], json({{"binary", qemu}, {"version", "9.1.0"}, {"banner", "QEMU emulator version 9.1.0 (test build)"}}));
    EXPECT_EQ(env["kernel_config"]["sha256"], sha256_file(config));
    EXPECT_EQ(env["kernel_config"]["bytes"], 11);
    EXPECT_EQ(env["initbench"], cli_build_facts());
    EXPECT_FALSE(env["host"]["kernel_release"].get<std::string>().empty());
    EXPECT_TRUE(env["host"].contains("cpu_model"));
    EXPECT_EQ(run_environment(qemu, "")["qemu"], env["qemu"]);
    EXPECT_FALSE(run_environment(qemu, "").contains("kernel_config"));
    EXPECT_EQ(slurp(count), "x\n") << "QEMU --version runs once a process";

    json missing = run_environment(dir / "no-such-qemu", dir / "no-such-config");
    EXPECT_TRUE(missing["qemu"].contains("error")) << missing.dump();
    EXPECT_FALSE(missing["qemu"].contains("version"));
    EXPECT_TRUE(missing["kernel_config"].contains("error"));
    EXPECT_FALSE(missing["kernel_config"].contains("sha256"));
}

// The image's build comes from the header record; the document has it only when asked.
TEST(Environment, ResultsDocumentTakesTheImageFromTheHeader) {
    json header = kHeader;
    header["initbench"] = "0.1.0";
    header["initbench_commit"] = "bcdac30-dirty";
    RecordWriter w;
    const ParsedLog log = parse_log(w.line(header) + w.end_line());
    const Verdict v = judge(log, std::nullopt);
    json doc = results_document(log, v, json::object(), parse_environment());
    EXPECT_EQ(doc["environment"]["image"], json({{"version", "0.1.0"}, {"commit", "bcdac30-dirty"}}));
    EXPECT_EQ(doc["environment"]["initbench"], cli_build_facts());
    EXPECT_FALSE(results_document(log, v, json::object()).contains("environment"));

    header.erase("initbench_commit"); // an image built before the commit was recorded
    RecordWriter w2;
    const ParsedLog old = parse_log(w2.line(header) + w2.end_line());
    EXPECT_EQ(results_document(old, v, json::object(), parse_environment())["environment"]["image"],
              json({{"version", "0.1.0"}}));
    const ParsedLog none = parse_log("");
    EXPECT_FALSE(results_document(none, judge(none, std::nullopt), json::object(), parse_environment())["environment"]
                     .contains("image"));
}

TEST(HumanSummary, NamesKernelPhasesAndVerdict) {
    const ParsedLog log = parse_log(run_log({kError}));
    const std::string s = human_summary(log, judge(log, std::nullopt));
    for (const char* want : {"6.1.0-99-test", "feedface", "0123abcd", "smoke", "idle", "fork", "forks/s",
                             "probe funclat", "attach failed", "errors"})
        EXPECT_TRUE(contains(s, want)) << "missing \"" << want << "\" in:\n" << s;
    EXPECT_LT(s.find("idle"), s.find("fork")); // in record order
    EXPECT_TRUE(contains(s.substr(s.rfind("result")), "errors"));
}

TEST(HumanSummary, CommandRecordsLikePerfStat) {
    const json command = json::parse(R"json({"type": "command", "kind": "exec", "command": "busybox true",
        "repeat": 20, "elapsed_s": {"mean": 0.0215, "rel_stderr_pct": 1.14},
        "counters": [{"event": "task-clock", "supported": true, "unit": "ns", "mean": 2.5e6,
                      "rel_stderr_pct": 1.2, "derived": {"value": 0.94, "unit": "CPUs utilized"}},
                     {"event": "cycles", "supported": false,
                      "reason": "not supported: No such file or directory (errno 2)"}]})json");
    const json module = {{"type", "command"}, {"kind", "module"}, {"module", "/payload/m.ko"}, {"repeat", 10}};
    const ParsedLog log = parse_log(run_log({command, module}));
    const std::string s = human_summary(log, judge(log, std::nullopt));
    for (const char* want : {"command busybox true  x20  0.0215 s ( +- 1.14% )",
                             "  task-clock 2.5e+06 ns ( +- 1.2% )  0.94 CPUs utilized",
                             "  cycles not supported: No such file or directory (errno 2)",
                             "command /payload/m.ko  x10"})
        EXPECT_TRUE(contains(s, want)) << "missing \"" << want << "\" in:\n" << s;
}

// Each probe shows the headline metrics its record declares: a wakeups record has no
// count, avg or max, and must not be shown as "count 0 avg 0 us".
TEST(HumanSummary, ProbesShowTheirOwnHeadlineMetrics) {
    const json wakeups = json::parse(R"json({"type": "probe", "probe": "wakeups", "phase": "fork", "v": 3,
        "supported": true, "mechanism": "fentry/try_to_wake_up", "threads": 6, "processes": 5, "mms": 4,
        "wakeups": 31, "metrics": {"threads": {"value": 6}, "processes": {"value": 5}, "mms": {"value": 4},
        "wakeups": {"value": 31}}})json");
    const json funclat = json::parse(R"json({"type": "probe", "probe": "funclat", "function": "kernel_clone",
        "phase": "fork", "v": 3, "supported": true, "mechanism": "fentry/fexit", "count": 120,
        "metrics": {"count": {"value": 120, "unit": "calls"}, "avg": {"value": 2500, "unit": "ns"},
                    "max": {"value": 90000, "unit": "ns"}, "p99": {"value": 80000, "unit": "ns"}}})json");
    const json broken = {{"type", "probe"}, {"probe", "wakeups"}, {"phase", "fork"}, {"v", 3},
                         {"supported", true}, {"mechanism", "fentry/try_to_wake_up"},
                         {"error", "reading the counts: Bad address"}};
    const ParsedLog log = parse_log(run_log({wakeups, funclat, broken}));
    const std::string s = human_summary(log, judge(log, std::nullopt));
    for (const char* want : {"probe   wakeups  [fork] fentry/try_to_wake_up threads 6 processes 5 mms 4 wakeups 31\n",
                             "probe   funclat kernel_clone [fork] fentry/fexit count 120 avg 2.5 us max 90 us\n",
                             "probe   wakeups  [fork] fentry/try_to_wake_up error: reading the counts: Bad address\n"})
        EXPECT_TRUE(contains(s, want)) << "missing \"" << want << "\" in:\n" << s;
    EXPECT_FALSE(contains(s, "count 0")) << s;
}

TEST(HumanSummary, WithoutHeader) {
    const ParsedLog log = parse_log("");
    const std::string s = human_summary(log, judge(log, std::nullopt));
    EXPECT_TRUE(contains(s, "boot-failure"));
    EXPECT_FALSE(contains(s, "kernel  "));
}

} // namespace
} // namespace initbench
