// `initbench export`'s model: what the results say as a list of kernels and tests, built once
// from the typed runs and the typed comparison (compare's Report), and written out by one
// writer per format (kcidb.cpp, junit.cpp). Reading the inputs: export_read.cpp; a run's own
// tests: export_runs.cpp; the verdicts against a baseline: export_verdicts.cpp.
#pragma once

#include "common/result.h"
#include "host/compare/compare.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace initbench::exporting {

// KCIDB's test statuses (v5.3), the order its schema ranks them in.
enum class TestStatus { fail, error, miss, pass, done, skip };
std::string status_name(TestStatus s); // "FAIL", ...

// What a boot's results document says beyond compare's RunFile: how it was booted and when.
struct RunContext {
    std::string arch, accel, machine, qemu_binary; // "" where the document does not say
    std::optional<double> cpus, memory_mb;
    std::string start_time; // RFC 3339 (UTC); the document's file's time less the boot's
    std::string log_name;   // the console log's file name next to it ("r-001.log")
    std::string content;    // a digest of the document: the key of a run without a run id
    // The kernel's .config when the boot was given it (run --kernel-config): its file's name
    // and SHA-256; "" otherwise.
    std::string config_name, config_sha256;
};

struct Run {
    RunFile file;
    RunContext context;
};

// A side as export reads it: compare's Side, each run with its context (in the same order).
struct ExportSide {
    std::string label;
    std::vector<Run> runs;
    Side side() const; // compare's view of it
};

// What was read: the sides, which one is the baseline (none: no comparison), and how the
// comparison is judged (from the command line, or from an ab directory's plan and last look).
struct ExportInput {
    std::vector<ExportSide> sides;
    std::optional<size_t> baseline;
    CompareOptions options;
};

// What the user says about a kernel that its results do not know.
struct KernelFacts {
    std::string git_commit_hash, git_repository_url, git_branch, tree_name;
};

// One kernel: a KCIDB checkout and build. `key` is derived from the kernel's own identity
// (its build id, else its image's SHA-256, else its release), so exports agree on it.
struct Kernel {
    std::string key, release, build_id, sha256, arch, label;
    std::string config_name, config_sha256;
    KernelFacts facts;
};

// One figure a reader needs: KCIDB's misc, JUnit's properties.
using Figure = std::pair<std::string, nlohmann::json>;

struct Test {
    std::string id;               // without the origin: "RUNID:r0:fork/ops_per_s"
    size_t kernel = 0;            // index into Model::kernels
    std::vector<std::string> path; // components after "initbench": {"fork", "ops_per_s"}
    std::string suite;            // JUnit's test suite: the side's label, or "base vs new"
    std::string name;             // JUnit's test case: "fork/ops_per_s round 0 run 1a2b"
    TestStatus status = TestStatus::done;
    std::optional<Decision> verdict; // set on a verdict against the baseline
    std::optional<double> value;
    std::string unit;
    std::string start_time, log_name, comment;
    std::string excerpt; // why it is ERROR or SKIP (KCIDB's log_excerpt, JUnit's message)
    std::string platform;
    std::vector<Figure> environment, misc;
};

struct Model {
    std::vector<Kernel> kernels;
    std::vector<Test> tests;
    std::vector<std::string> warnings; // said on stderr: what could not be exported
};

struct ModelOptions {
    std::vector<FailRule> fail_on;
    // Per side label (or "" for the candidate: the last side) what the user adds.
    std::vector<std::pair<std::string, KernelFacts>> facts;
};

// The whole model: each run's tests, and with a baseline each compared metric's verdict.
Result<Model> build_model(const ExportInput& input, const ModelOptions& options);

// A run's kernel, and the run's tests (export_runs.cpp).
Kernel kernel_of(const Run& run, const std::string& label);
std::vector<Test> run_tests(const Run& run, size_t kernel, const std::string& suite);
// Where a boot ran: QEMU's binary, machine and accelerator in words, and as figures.
struct Platform {
    std::string words;
    std::vector<Figure> figures;
};
Platform platform_of(const RunContext& c);

// What a compared side's verdict tests take from its boots: its kernel, the start of its
// latest boot and where its first boot ran.
struct SideFacts {
    size_t kernel = 0;
    std::string start_time;
    Platform platform;
};
// The verdicts of each later side against the baseline (export_verdicts.cpp); facts[i] is
// the report's side i's.
std::vector<Test> verdict_tests(const Report& report, const std::vector<SideFacts>& facts,
                                const std::vector<FailRule>& fail_on);

// A metric id as path components: "fork/funclat:kernel_clone/avg" -> fork, funclat,
// kernel_clone, avg; any character KCIDB's path refuses becomes '-'.
std::vector<std::string> path_of(const std::string& id);
// A short, stable digest of text (FNV-1a, 16 hex digits): ids from content, never from time.
std::string digest(std::string_view text);

} // namespace initbench::exporting
