// Unit tests of the host CLI's library (host/): verdicts, the QEMU command line, the
// initramfs writer, the child runner and file hashing. No QEMU and no kernel needed.
#include "common/crc32.h"
#include "host/results/logparse.h"
#include "common/record.h"
#include "host/image/cpio_archive.h"
#include "host/boot/environment.h"
#include "host/boot/hash.h"
#include "host/image/image_settings.h"
#include "host/boot/process.h"
#include "host/boot/qemu.h"
#include "host/cli/boot_cli.h"
#include "host/results/results.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using End = ChildOutcome::End;

// ---- helpers -----------------------------------------------------------------------

// A scratch directory, removed with everything in it at the end of the test.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "ib-host-test-XXXXXX").string();
        if (!::mkdtemp(tmpl.data()))
            throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() { fs::remove_all(path_); }
    std::string file(const std::string& name, const std::string& content) const {
        std::string p = (path_ / name).string();
        std::ofstream(p, std::ios::binary) << content;
        return p;
    }
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }

private:
    fs::path path_;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

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

// ---- qemu: the argument vector -----------------------------------------------------

// The element after `flag`, or "" when the flag is absent or last.
std::string arg_after(const std::vector<std::string>& argv, const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it == argv.end() || it + 1 == argv.end() ? "" : *(it + 1);
}

bool has_pair(const std::vector<std::string>& argv, const std::string& a, const std::string& b) {
    for (size_t i = 0; i + 1 < argv.size(); i++)
        if (argv[i] == a && argv[i + 1] == b)
            return true;
    return false;
}

bool has(const std::vector<std::string>& argv, const std::string& a) {
    return std::find(argv.begin(), argv.end(), a) != argv.end();
}

BootSpec spec(const std::string& arch) {
    BootSpec s;
    s.arch = arch;
    s.kernel = "/boot/vmlinuz";
    s.image = "/tmp/initbench.cpio.gz";
    s.cpus = 2;
    s.memory_mb = 768;
    return s;
}

TEST(QemuArgv, X86_64Tcg) {
    const auto argv = qemu_argv(spec("x86_64"));
    ASSERT_FALSE(argv.empty());
    EXPECT_EQ(argv[0], "qemu-system-x86_64");
    EXPECT_TRUE(has_pair(argv, "-accel", "tcg"));
    EXPECT_TRUE(has_pair(argv, "-cpu", "max"));
    EXPECT_TRUE(has(argv, "-no-reboot"));
    EXPECT_FALSE(has(argv, "-icount"));
    EXPECT_FALSE(has(argv, "-machine"));
    EXPECT_EQ(arg_after(argv, "-kernel"), "/boot/vmlinuz");
    EXPECT_EQ(arg_after(argv, "-initrd"), "/tmp/initbench.cpio.gz");
    EXPECT_EQ(arg_after(argv, "-smp"), "2");
    EXPECT_EQ(arg_after(argv, "-m"), "768");
    EXPECT_EQ(arg_after(argv, "-serial"), "stdio");
    const std::string append = arg_after(argv, "-append");
    EXPECT_TRUE(contains(append, "console=ttyS0"));
    EXPECT_FALSE(contains(append, "ttyAMA0"));
    EXPECT_TRUE(contains(" " + append + " ", " panic=-1 "));
}

TEST(QemuArgv, Aarch64Tcg) {
    const auto argv = qemu_argv(spec("aarch64"));
    ASSERT_FALSE(argv.empty());
    EXPECT_EQ(argv[0], "qemu-system-aarch64");
    EXPECT_TRUE(has_pair(argv, "-machine", "virt"));
    EXPECT_TRUE(has_pair(argv, "-accel", "tcg"));
    EXPECT_TRUE(has_pair(argv, "-cpu", "max"));
    EXPECT_TRUE(has(argv, "-no-reboot"));
    const std::string append = arg_after(argv, "-append");
    EXPECT_TRUE(contains(append, "console=ttyAMA0"));
    EXPECT_FALSE(contains(append, "ttyS0"));
    EXPECT_TRUE(contains(" " + append + " ", " panic=-1 "));
    EXPECT_EQ(serial_console("aarch64"), "ttyAMA0");
    EXPECT_EQ(serial_console("x86_64"), "ttyS0");
}

TEST(QemuArgv, Kvm) {
    for (const char* arch : {"x86_64", "aarch64"}) {
        SCOPED_TRACE(arch);
        BootSpec s = spec(arch);
        s.accel = Accel::kvm;
        const auto argv = qemu_argv(s);
        EXPECT_TRUE(has_pair(argv, "-accel", "kvm"));
        EXPECT_TRUE(has_pair(argv, "-cpu", "host"));
        EXPECT_FALSE(has(argv, "tcg"));
        EXPECT_FALSE(has(argv, "max"));
    }
}

TEST(QemuArgv, MachineTopologyAndManyCpus) {
    BootSpec s = spec("x86_64");
    s.cpus = 16;
    s.topology = Topology{2, 4, 2};
    EXPECT_EQ(arg_after(qemu_argv(s), "-smp"), "16,sockets=2,cores=4,threads=2");
    // One host thread for a few more vCPUs than host CPUs, a thread each for many, or for
    // no more than the host has.
    s.host_cpus = 2;
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg,thread=single"));
    s.cpus = 128;
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg"));
    s.cpus = 2;
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg"));
    s.cpus = 18;
    s.host_cpus = 0; // unknown
    EXPECT_TRUE(has_pair(qemu_argv(s), "-accel", "tcg"));
    // GICv2 stops at 8 CPUs: more need GICv3 on arm64's virt machine.
    BootSpec arm = spec("aarch64");
    EXPECT_TRUE(has_pair(qemu_argv(arm), "-machine", "virt"));
    arm.cpus = 9;
    EXPECT_TRUE(has_pair(qemu_argv(arm), "-machine", "virt,gic-version=3"));
    EXPECT_EQ(max_cpus("x86_64"), 255u);
    EXPECT_EQ(max_cpus("aarch64"), 512u);
}

TEST(MachineChoice, CommandLineBeatsTheProfileWhichBeatsTheDefault) {
    const auto profile = [](std::string_view name) -> std::optional<std::string> {
        if (name == "big")
            return std::string("machine.cpus = 16\nmachine.memory_mb = 4096\nmachine.topology = 2:4:2\n");
        return name == "default" ? std::optional<std::string>("") : std::nullopt;
    };
    const Config big = parse_config("initbench.profile=big", profile).config;
    MachineChoice m = choose_machine(big, std::nullopt, std::nullopt);
    EXPECT_EQ(m.cpus, 16u);
    EXPECT_EQ(m.cpus_source, "profile:big");
    EXPECT_EQ(m.memory_mb, 4096u);
    ASSERT_TRUE(m.topology);
    EXPECT_EQ(m.topology->text(), "2:4:2");

    m = choose_machine(big, 4u, 2048u);
    EXPECT_EQ(m.cpus, 4u);
    EXPECT_EQ(m.cpus_source, "--cpus");
    EXPECT_EQ(m.memory_source, "--memory");
    EXPECT_FALSE(m.topology) << "2:4:2 is not 4 CPUs";
    EXPECT_NE(m.topology_note.find("flat -smp 4"), std::string::npos) << m.topology_note;

    m = choose_machine(parse_config("", profile).config, std::nullopt, std::nullopt);
    EXPECT_EQ(m.cpus, 1u);
    EXPECT_EQ(m.memory_mb, 1024u);
    EXPECT_EQ(m.cpus_source, "default");
    const auto facts = machine_facts(choose_machine(big, std::nullopt, std::nullopt));
    EXPECT_EQ(facts["cpus_source"], "profile:big");
    EXPECT_EQ(facts["topology"], "2:4:2");
}

TEST(QemuArgv, Icount) {
    BootSpec s = spec("x86_64");
    s.icount = true;
    const auto argv = qemu_argv(s);
    EXPECT_TRUE(has_pair(argv, "-accel", "tcg"));
    EXPECT_TRUE(has_pair(argv, "-icount", "shift=4,align=off,sleep=off"));
    EXPECT_TRUE(has_pair(argv, "-cpu", "max"));
}

TEST(QemuArgv, ParamsArriveUnchangedInOneElement) {
    const std::vector<std::string> params = {"initbench.profile=smoke",
                                             "initbench.cmd=echo \"a b\"; ls 'x y' $HOME `id` | cat",
                                             "quiet"};
    BootSpec plain = spec("x86_64");
    BootSpec s = plain;
    s.params = params;
    s.kernel = "/path with spaces/bzImage";
    const auto argv = qemu_argv(s);
    EXPECT_EQ(argv.size(), qemu_argv(plain).size()); // no extra elements: nothing was split
    EXPECT_EQ(arg_after(argv, "-kernel"), "/path with spaces/bzImage");
    const std::string append = arg_after(argv, "-append");
    std::string tail;
    for (const auto& p : params)
        tail += " " + p;
    ASSERT_GE(append.size(), tail.size());
    EXPECT_EQ(append.substr(append.size() - tail.size()), tail);
    EXPECT_EQ(kernel_cmdline(s), append);
}

// `run -- initbench.module.params="a=1 b=2"`: the shell hands run one argument with spaces,
// and the guest must get it as one parameter, not as "a=1" and a stray "b=2".
TEST(QemuArgv, AParameterWithSpacesIsQuoted) {
    EXPECT_EQ(cmdline_word("initbench.module.params=a=1 b=2"), "initbench.module.params=\"a=1 b=2\"");
    EXPECT_EQ(cmdline_word("initbench.cmd=echo\thi"), "initbench.cmd=\"echo\thi\"");
    EXPECT_EQ(cmdline_word("two words"), "\"two words\"");
    EXPECT_EQ(cmdline_word("initbench.phases=cpu,fork"), "initbench.phases=cpu,fork");
    EXPECT_EQ(cmdline_word("initbench.cmd=\"a b\""), "initbench.cmd=\"a b\"");
    BootSpec s = spec("x86_64");
    s.params = {"initbench.module.params=x=1 y=2", "quiet"};
    EXPECT_TRUE(kernel_cmdline(s).ends_with(" initbench.module.params=\"x=1 y=2\" quiet"));
}

// The delay loop's value (host/boot/delay_loop.h) comes last, as one more kernel parameter.
TEST(QemuArgv, LpjFollowsTheParameters) {
    BootSpec s = spec("x86_64");
    s.params = {"quiet"};
    EXPECT_FALSE(contains(kernel_cmdline(s), "lpj="));
    s.lpj = 7999996;
    EXPECT_TRUE(kernel_cmdline(s).ends_with(" quiet lpj=7999996"));
}

// ---- cpio_archive: the manifest and the archive --------------------------------------

TEST(Manifest, EveryLineKind) {
    const auto entries = parse_manifest(
        "# initbench image\n"
        "\n"
        "dir /dev 0755\n"
        "   dir   proc   555   # trailing comment\n"
        "file /init 0755 /build/initbench-init\n"
        "slink /bin/sh busybox\n"
        "nod /dev/console 0600 c 5 1\n");
    ASSERT_EQ(entries.size(), 5u);
    using K = CpioEntry::Kind;
    EXPECT_EQ(entries[0].kind, K::dir);
    EXPECT_EQ(entries[0].path, "dev");
    EXPECT_EQ(entries[0].mode, 0755u);
    EXPECT_EQ(entries[1].path, "proc");
    EXPECT_EQ(entries[1].mode, 0555u);
    EXPECT_EQ(entries[2].kind, K::file);
    EXPECT_EQ(entries[2].path, "init");
    EXPECT_EQ(entries[2].source, "/build/initbench-init");
    EXPECT_EQ(entries[3].kind, K::symlink);
    EXPECT_EQ(entries[3].path, "bin/sh");
    EXPECT_EQ(entries[3].source, "busybox");
    EXPECT_EQ(entries[3].mode, 0777u);
    EXPECT_EQ(entries[4].kind, K::chardev);
    EXPECT_EQ(entries[4].path, "dev/console");
    EXPECT_EQ(entries[4].mode, 0600u);
    EXPECT_EQ(entries[4].major, 5u);
    EXPECT_EQ(entries[4].minor, 1u);
    EXPECT_TRUE(parse_manifest("# only a comment\n\n   \n").empty());
}

// Expects parse_manifest to throw a std::runtime_error that names `line`.
void expect_malformed(const std::string& text, int line) {
    SCOPED_TRACE(text);
    try {
        parse_manifest(text);
        ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "line " + std::to_string(line))) << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a std::runtime_error: " << e.what();
    }
}

TEST(Manifest, MalformedLinesNameTheLine) {
    const std::string ok = "# header\ndir /dev 0755\n";
    for (const char* bad : {"dir", "dir /x", "file /x 0644", "file /x", "slink /x", "nod /dev/null 0666 c 1",
                            "nod /dev/null 0666 b 1 3", "nod /dev/null 0666 c one 3", "pipe /x 0644",
                            "dir / 0755"})
        expect_malformed(ok + bad + "\n", 3);
}

TEST(Manifest, BadModesNameTheLine) {
    // Regression (was a bug): host/image/cpio_archive.cpp parse_manifest(): the mode is converted after the checks with
    // std::stoul(mode, nullptr, 8): "rwx" throws std::invalid_argument (not runtime_error, no
    // line number), "0968" silently becomes 0, "0100755" smuggles file-type bits into the
    // mode that write_cpio_gz() ORs with S_IFDIR/S_IFREG.
    const std::string ok = "dir /dev 0755\n";
    for (const char* bad : {"dir /x rwx", "file /x 0968 /src", "dir /x 0100755", "nod /x -1 c 1 3"})
        expect_malformed(ok + bad + "\n", 2);
}

// One entry of a newc archive, read back by hand (not with libarchive, which wrote it).
struct NewcEntry {
    std::string name;
    unsigned long ino, mode, uid, gid, nlink, mtime, devmajor, devminor, rdevmajor, rdevminor, check;
    std::string data;
};

std::string gunzip(const std::string& gz) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK); // gzip wrapper only
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
    z.avail_in = static_cast<uInt>(gz.size());
    std::string out;
    char buf[1 << 15];
    int rc;
    do {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
    } while (rc == Z_OK);
    EXPECT_EQ(rc, Z_STREAM_END);
    EXPECT_EQ(z.avail_in, 0u) << "bytes after the gzip stream";
    inflateEnd(&z);
    return out;
}

std::vector<NewcEntry> read_newc(const std::string& cpio) {
    std::vector<NewcEntry> out;
    auto pad4 = [](size_t n) { return (n + 3) & ~size_t(3); };
    size_t pos = 0;
    for (;;) {
        if (pos + 110 > cpio.size()) {
            ADD_FAILURE() << "truncated header at " << pos;
            return out;
        }
        if (cpio.compare(pos, 6, "070701") != 0) {
            ADD_FAILURE() << "bad magic at " << pos;
            return out;
        }
        unsigned long f[13];
        for (int i = 0; i < 13; i++)
            f[i] = std::stoul(cpio.substr(pos + 6 + 8 * i, 8), nullptr, 16);
        NewcEntry e{"", f[0], f[1], f[2], f[3], f[4], f[5], f[7], f[8], f[9], f[10], f[12], ""};
        const size_t namesize = f[11], filesize = f[6];
        e.name = cpio.substr(pos + 110, namesize - 1);
        EXPECT_EQ(cpio[pos + 110 + namesize - 1], '\0');
        pos = pad4(pos + 110 + namesize);
        e.data = cpio.substr(pos, filesize);
        pos = pad4(pos + filesize);
        if (e.name == "TRAILER!!!")
            return out;
        out.push_back(std::move(e));
    }
}

// Both efforts (pack's zlib, the build's zopfli) write the same archive, reproducibly.
class CpioArchiveEffort : public ::testing::TestWithParam<GzipEffort> {};
INSTANTIATE_TEST_SUITE_P(Effort, CpioArchiveEffort, ::testing::Values(GzipEffort::fast, GzipEffort::smallest),
                         [](const auto& info) { return info.param == GzipEffort::fast ? "Fast" : "Smallest"; });

TEST_P(CpioArchiveEffort, ReproducibleNewcGzip) {
    TempDir tmp;
    const std::string init_bytes = std::string("\x7f" "ELF fake init\0with a NUL", 24);
    const std::string init_src = tmp.file("init-src", init_bytes);
    const std::string conf_src = tmp.file("conf-src", "profile=smoke\n"); // 14 bytes: needs padding
    std::vector<CpioEntry> entries = parse_manifest("dir /dev 0755\n"
                                                    "nod /dev/console 0600 c 5 1\n"
                                                    "dir /bin 0755\n"
                                                    "slink /bin/sh busybox\n"
                                                    "file /etc/initbench.conf 0644 " + conf_src + "\n"
                                                    "dir /etc 0755\n"
                                                    "file /init 0755 " + init_src + "\n");
    write_cpio_gz(entries, tmp / "a.cpio.gz", GetParam());
    // Same entries in another order, later, from a source with another mtime, to another name.
    std::reverse(entries.begin(), entries.end());
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    fs::last_write_time(init_src, fs::last_write_time(init_src) - std::chrono::hours(24));
    write_cpio_gz(entries, tmp / "b-other-name.cpio.gz", GetParam());

    const std::string a = slurp(tmp / "a.cpio.gz"), b = slurp(tmp / "b-other-name.cpio.gz");
    ASSERT_GT(a.size(), 18u);
    EXPECT_TRUE(a == b) << "archives differ: not reproducible";

    // gzip header: magic, deflate, MTIME (bytes 4..7) zero, and no original file name.
    EXPECT_EQ(static_cast<unsigned char>(a[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(a[1]), 0x8b);
    EXPECT_EQ(a[2], 8);
    EXPECT_EQ(a.substr(4, 4), std::string(4, '\0'));
    EXPECT_EQ(a[3] & 0x08, 0) << "FNAME set: the output name is in the archive";

    const auto files = read_newc(gunzip(a));
    std::vector<std::string> names;
    for (const auto& e : files)
        names.push_back(e.name);
    EXPECT_EQ(names, (std::vector<std::string>{"bin", "bin/sh", "dev", "dev/console", "etc",
                                                "etc/initbench.conf", "init"}));
    std::map<std::string, NewcEntry> by_name;
    for (const auto& e : files) {
        SCOPED_TRACE(e.name);
        EXPECT_EQ(e.mtime, 0u);
        EXPECT_EQ(e.uid, 0u);
        EXPECT_EQ(e.gid, 0u);
        EXPECT_EQ(e.devmajor, 0u);
        EXPECT_EQ(e.devminor, 0u);
        EXPECT_EQ(e.check, 0u);
        by_name[e.name] = e;
    }
    for (size_t i = 0; i < files.size(); i++)
        EXPECT_EQ(files[i].ino, i + 1) << files[i].name; // sequential in path order

    EXPECT_EQ(by_name["dev"].mode, unsigned(S_IFDIR | 0755));
    EXPECT_EQ(by_name["init"].mode, unsigned(S_IFREG | 0755));
    EXPECT_EQ(by_name["init"].data, init_bytes);
    EXPECT_EQ(by_name["etc/initbench.conf"].mode, unsigned(S_IFREG | 0644));
    EXPECT_EQ(by_name["etc/initbench.conf"].data, "profile=smoke\n");
    EXPECT_EQ(by_name["bin/sh"].mode, unsigned(S_IFLNK | 0777));
    EXPECT_EQ(by_name["bin/sh"].data, "busybox");
    const NewcEntry& console = by_name["dev/console"];
    EXPECT_EQ(console.mode, unsigned(S_IFCHR | 0600));
    EXPECT_EQ(console.rdevmajor, 5u);
    EXPECT_EQ(console.rdevminor, 1u);
    EXPECT_EQ(console.data, "");
}

TEST_P(CpioArchiveEffort, MissingSourceThrows) {
    TempDir tmp;
    std::vector<CpioEntry> entries = parse_manifest("file /init 0755 " + (tmp / "does-not-exist") + "\n");
    EXPECT_THROW(write_cpio_gz(entries, tmp / "x.cpio.gz", GetParam()), std::runtime_error);
    EXPECT_THROW(write_cpio_gz({}, tmp / "no-such-dir/x.cpio.gz", GetParam()), std::runtime_error);
}

// zopfli's gzip of the same archive is smaller than zlib's level 9 (text-like data).
TEST(CpioArchive, SmallestIsSmaller) {
    TempDir tmp;
    std::string text;
    for (int i = 0; i < 2000; i++)
        text += "line " + std::to_string(i * 7919 % 1000) + " of a profile\n";
    const auto entries = parse_manifest("file /init 0755 " + tmp.file("src", text) + "\n");
    write_cpio_gz(entries, tmp / "fast.cpio.gz", GzipEffort::fast);
    write_cpio_gz(entries, tmp / "small.cpio.gz", GzipEffort::smallest);
    const std::string fast = slurp(tmp / "fast.cpio.gz"), small = slurp(tmp / "small.cpio.gz");
    EXPECT_LT(small.size(), fast.size());
    EXPECT_EQ(gunzip(small), gunzip(fast)); // the same cpio inside
}

// A packed image is the base archive and pack's appended one: both are read, the later
// entry of one name winning (as the kernel unpacks them); a cut image is not read at all.
TEST(CpioArchive, ReadsEveryArchiveOfAnImage) {
    TempDir tmp;
    write_cpio_gz(parse_manifest("dir /bin 0755\nfile /bin/sh 0755 " + tmp.file("sh", "base sh") +
                                 "\nslink /bin/true /bin/sh\nfile /etc/a 0644 " + tmp.file("a", "old") + "\n"),
                  tmp / "base.cpio.gz");
    write_cpio_gz(parse_manifest("file /payload/bin/insmod 0755 " + tmp.file("insmod", "wrapper") +
                                 "\nfile /etc/a 0644 " + tmp.file("a2", "new") + "\n"),
                  tmp / "payload.cpio.gz");
    const std::string packed = slurp(tmp / "base.cpio.gz") + slurp(tmp / "payload.cpio.gz");
    std::ofstream(tmp / "packed.cpio.gz", std::ios::binary) << packed;
    auto all = [](const std::string&) { return true; };
    const auto files = read_cpio_files(tmp / "packed.cpio.gz", all);
    ASSERT_TRUE(files);
    EXPECT_EQ(files->at("bin/sh"), "base sh");
    EXPECT_EQ(files->at("bin/true"), "/bin/sh"); // a symlink's target
    EXPECT_EQ(files->at("payload/bin/insmod"), "wrapper");
    EXPECT_EQ(files->at("etc/a"), "new");
    EXPECT_EQ(read_cpio_files(tmp / "packed.cpio.gz", all, 3)->at("payload/bin/insmod"), "wra");
    // Uncompressed, and cut short.
    std::ofstream(tmp / "plain.cpio", std::ios::binary) << gunzip(slurp(tmp / "base.cpio.gz"));
    EXPECT_EQ(read_cpio_files(tmp / "plain.cpio", all)->at("etc/a"), "old");
    const std::string plain = gunzip(slurp(tmp / "base.cpio.gz"));
    std::ofstream(tmp / "cut.cpio", std::ios::binary) << plain.substr(0, 150);
    EXPECT_FALSE(read_cpio_files(tmp / "cut.cpio", all));
}

// ---- process: run_child() -------------------------------------------------------------

ChildRun sh(const std::string& script, double timeout_s = 20) {
    ChildRun r;
    r.argv = {"/bin/sh", "-c", script};
    r.timeout_s = timeout_s;
    return r;
}

// True once `pid` no longer runs (gone, or a zombie left to someone else to reap).
bool gone_within(pid_t pid, double seconds) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    do {
        if (::kill(pid, 0) != 0 && errno == ESRCH)
            return true;
        std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
        auto paren = stat.rfind(')');
        if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z')
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < until);
    return false;
}

TEST(RunChild, ExitedWithOutput) {
    std::string got;
    ChildRun r = sh("echo hello; echo world");
    r.on_output = [&](std::string_view s) {
        got += s;
        return false;
    };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::exited);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(got, "hello\nworld\n");
    EXPECT_GE(o.first_output_s, 0);
    EXPECT_LT(o.complete_s, 0);
    EXPECT_LT(o.wall_s, 10);
}

TEST(RunChild, ExitCodeAndStderr) {
    const ChildOutcome o = run_child(sh("echo to-stderr >&2; exit 3"));
    EXPECT_EQ(o.end, End::exited);
    EXPECT_EQ(o.exit_code, 3);
    EXPECT_EQ(o.stderr_text, "to-stderr\n");
    EXPECT_LT(o.first_output_s, 0); // nothing on stdout
}

TEST(RunChild, StderrKeepsTheLast8KiB) {
    const ChildOutcome o = run_child(sh("i=0; while [ $i -lt 2000 ]; do echo line-$i >&2; i=$((i+1)); done"));
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.stderr_text.size(), 8192u);
    EXPECT_TRUE(o.stderr_text.ends_with("line-1999\n"));
}

TEST(RunChild, TimeoutKillsTheChild) {
    std::string got;
    ChildRun r = sh("echo $$; exec sleep 100", 1);
    r.on_output = [&](std::string_view s) {
        got += s;
        return false;
    };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::timeout);
    EXPECT_GE(o.wall_s, 0.9);
    EXPECT_LT(o.wall_s, 5);
    const pid_t pid = std::atoi(got.c_str());
    ASSERT_GT(pid, 1);
    errno = 0;
    EXPECT_EQ(::kill(pid, 0), -1);
    EXPECT_EQ(errno, ESRCH);
}

TEST(RunChild, TimeoutKillsTheWholeGroup) {
    std::string got;
    ChildRun r = sh("sleep 100 & echo $!; wait", 1);
    r.on_output = [&](std::string_view s) {
        got += s;
        return false;
    };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::timeout);
    const pid_t grandchild = std::atoi(got.c_str());
    ASSERT_GT(grandchild, 1);
    EXPECT_TRUE(gone_within(grandchild, 3));
}

TEST(RunChild, TimeoutHoldsWhenTheChildClosesItsOutput) {
    // Regression (was a bug): host/boot/process.cpp run_child(): the poll loop runs only `while (out_open ||
    // err_open)`; a child that closes (or redirects) stdout and stderr but keeps running is
    // then waited for with a blocking waitpid(pid, &status, 0), so timeout_s is not enforced.
    const ChildOutcome o = run_child(sh("exec >/dev/null 2>&1; sleep 4", 1));
    EXPECT_EQ(o.end, End::timeout);
    EXPECT_LT(o.wall_s, 3);
}

TEST(RunChild, NoFirstOutput) {
    ChildRun r = sh("exec sleep 100");
    r.first_output_deadline_s = 0.5;
    r.on_output = [](std::string_view) { return false; };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::no_output);
    EXPECT_LT(o.first_output_s, 0);
    EXPECT_GE(o.wall_s, 0.4);
    EXPECT_LT(o.wall_s, 5);
}

TEST(RunChild, OutputBeforeTheFirstOutputDeadlineIsFine) {
    ChildRun r = sh("echo early; sleep 1; echo late");
    r.first_output_deadline_s = 0.5;
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::exited);
    EXPECT_EQ(o.exit_code, 0);
}

TEST(RunChild, LingeringAfterCompleteOutput) {
    ChildRun r = sh("echo $$; echo done; sleep 100");
    r.exit_grace_s = 0.5;
    std::string got;
    r.on_output = [&](std::string_view s) {
        got += s;
        return contains(got, "done\n");
    };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::lingered);
    EXPECT_GE(o.complete_s, 0);
    EXPECT_LT(o.wall_s, 5);
    const pid_t pid = std::atoi(got.c_str());
    ASSERT_GT(pid, 1);
    EXPECT_TRUE(gone_within(pid, 1));
}

TEST(RunChild, CompleteAndExitingIsExited) {
    ChildRun r = sh("echo done");
    r.exit_grace_s = 5;
    r.on_output = [](std::string_view) { return true; };
    const ChildOutcome o = run_child(r);
    EXPECT_EQ(o.end, End::exited);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_GE(o.complete_s, 0);
}

TEST(RunChild, MissingProgram) {
    ChildRun r;
    r.argv = {"/nonexistent/initbench-no-such-program", "-x"};
    r.timeout_s = 10;
    const ChildOutcome o = run_child(r);
    EXPECT_TRUE(o.end == End::spawn_failed || o.exit_code == 127);
    const std::string text = o.error + o.stderr_text;
    EXPECT_TRUE(contains(text, "initbench-no-such-program")) << text;
    EXPECT_TRUE(contains(text, "No such file")) << text;
}

// A SIGTERM for us while the child runs stops the child and is reported, not fatal.
TEST(RunChild, SignalInterrupts) {
    const ChildOutcome o = run_child(sh("kill -TERM $PPID; exec sleep 100", 10));
    EXPECT_EQ(o.end, End::interrupted);
    EXPECT_EQ(o.term_signal, SIGTERM);
    EXPECT_LT(o.wall_s, 5);
}

// ---- hash ---------------------------------------------------------------------------

TEST(Sha256File, KnownDigests) {
    TempDir tmp;
    EXPECT_EQ(sha256_file(tmp.file("abc", "abc")),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_file(tmp.file("empty", "")),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // Larger than the 64 KiB read buffer: 1,000,000 x 'a' (FIPS 180-2 test vector).
    EXPECT_EQ(sha256_file(tmp.file("million", std::string(1000000, 'a'))),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256File, MissingFileThrows) {
    TempDir tmp;
    EXPECT_THROW(sha256_file(tmp / "missing"), std::runtime_error);
}

// ab's children get the boot options as `initbench run` arguments: every option, set away
// from its default, reads back as it was.
TEST(BootOptions, RunArgumentsReadBackThroughTheOneDeclaration) {
    BootOptions given;
    given.image = "/etc/hostname"; // --image must name a file
    given.arch = "aarch64";
    given.accel = "kvm";
    given.boot = "bzimage";
    given.clock = "icount";
    given.cpus = 3;
    given.memory_mb = 2048;
    given.timeout_s = 12.5;
    given.kernel_config = "/etc/hosts";
    CLI::App app;
    BootOptions read;
    add_boot_options(app, read);
    const auto args = run_arguments(given);
    std::vector<std::string> popped(args.rbegin(), args.rend()); // CLI11 takes them from the back
    app.parse(popped);
    EXPECT_EQ(read.image, given.image);
    EXPECT_EQ(read.arch, given.arch);
    EXPECT_EQ(read.accel, given.accel);
    EXPECT_EQ(read.boot, given.boot);
    EXPECT_EQ(read.clock, given.clock);
    EXPECT_EQ(read.cpus, given.cpus);
    EXPECT_EQ(read.memory_mb, given.memory_mb);
    EXPECT_EQ(read.timeout_s, given.timeout_s);
    EXPECT_EQ(read.kernel_config, given.kernel_config);
    // Unset sizes stay unset: the child sizes the guest from the experiment.
    EXPECT_EQ(std::count(args.begin(), args.end(), "--cpus"), 1);
    given.cpus = given.memory_mb = 0;
    const auto bare = run_arguments(given);
    EXPECT_EQ(std::count(bare.begin(), bare.end(), "--cpus"), 0);
    EXPECT_EQ(std::count(bare.begin(), bare.end(), "--memory"), 0);
}

} // namespace
} // namespace initbench
