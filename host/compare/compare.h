// `initbench compare`: reads results documents, pools the files of each side, reads every
// metric and histogram as the records' descriptions declare them (common/record_types.h),
// tests the changes against the first side and prints them (terminal, text, Markdown, JSON,
// CSV). `--fail-on` gives CI an exit code. Reading: compare_read.cpp; metrics:
// compare_metrics.cpp; checks and warnings: compare_checks.cpp; the samples and rows per side:
// compare_sides.cpp; one change's verdict: compare_judge.cpp (tests: stats.cpp,
// homogeneity.cpp); output: compare_render.cpp and one file per format; rules:
// compare_rules.cpp; the command line: host/cli/compare_cli.cpp.
#pragma once

#include "host/compare/stats.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

// Exit codes of `initbench compare` (also in its --help and docs/compare.md).
enum CompareExit : int {
    kCompareOk = 0,      // compared; no --fail-on rule fired
    kCompareFailed = 1,  // a --fail-on rule fired
    kCompareUsage = 2,   // bad command line, or a rule that matches no metric
    kCompareRefused = 3, // unreadable, incomplete or incomparable results
};

// One results document, read and checked.
struct RunFile {
    std::string path;
    std::string run_id;
    std::string verdict;      // "ok" or "errors"; anything worse is refused when read
    std::string clock;        // "wall", "icount", or "unknown" (a log parsed elsewhere)
    std::string clock_detail; // QEMU's -icount option, "" otherwise
    std::string kernel_release, build_id, cmdline, kernel_sha256, image_sha256;
    // The environment: QEMU's version line (environment.qemu.banner) and the image's build
    // (the header's initbench and initbench_commit); "" where the document does not say.
    std::string qemu, image_version, image_commit;
    // The host CPUs the boot was allowed to run on ("1", "0,1"; host.host_cpus), "" where the
    // document does not say. ab pins each boot; CPUs of one host can differ in speed.
    std::string host_cpus;
    // Other work on the host while the boot ran, in CPUs' worth (host.others_busy_cpus);
    // none where the document does not say.
    std::optional<double> others_busy_cpus;
    nlohmann::json experiment = nlohmann::json::object(); // what must match to compare
    size_t kernel_events = 0;                             // WARN/oops/BUG records
    std::vector<nlohmann::json> records;                  // the measurement records, in order
    // The run's error records, each "what (key): reason", in order.
    std::vector<std::string> errors;
    // Why the run gives no numbers: its log is not complete, or it ended worse than with
    // error records (a timeout, a boot failure). "" for a run that can be compared.
    std::string failure;
};

// The text of a results document (never throws: the fuzz target's entry point). A document
// that is not one is an Error; a failed run is a RunFile whose `failure` says why, with the
// records that arrived.
Result<RunFile> parse_run_document(std::string_view text, const std::string& path);
// As parse_run_document, from the document itself (a boot of this process made it).
Result<RunFile> run_file(const nlohmann::json& doc, const std::string& path);
// As run_file, but a failed run is an Error too.
Result<RunFile> results_of(const nlohmann::json& doc, const std::string& path);
// As parse_run_document, but a failed run is an Error too: no numbers are taken from it.
Result<RunFile> parse_results(std::string_view text, const std::string& path);
Result<RunFile> read_results(const std::string& path);
Result<RunFile> read_run_document(const std::string& path);

struct Side {
    std::string label;
    std::vector<RunFile> runs; // pooled: every round of every run is one sample
};

// The side a SIDE argument names (side_files below), every file read. A failed run refuses
// the side, unless keep_failed (compare's gate then fails on it, naming why).
Result<Side> load_side(const std::string& arg, const std::string& label, bool keep_failed = false);

// How a change is tested. auto: Welch's t-test under --clock icount, where a boot's figures
// repeat to a fraction of a percent and their noise is close to normal; the permutation test
// on the wall clock, whose boots under TCG are heavy-tailed (a boot a third slower than the
// rest is common) and quantised: there Welch's test on 2-4 samples a side claimed differences
// that were not there (docs/benchmarks.md has the measurements).
// paired: run i of one side against run i of the other, by their log ratios; for pairs that
// are independent (in ab's mirrored order neighbouring pairs share their noise: opt-in only).
enum class Method { auto_, welch, permutation, lkp, threshold, paired };
// auto_ resolved for a clock: "icount" (deterministic) or any other.
Method method_for_clock(Method asked, std::string_view clock);
// Whether a method is judged by the permutation test: auto_ unresolved (judge_change called
// without compare_sides) takes that, the safe test.
inline bool permutes(Method m) { return m == Method::permutation || m == Method::auto_; }
// What one sample is: a round, or a run (a results file: the mean of its rounds). Rounds of
// one boot share its host's conditions, so only runs show the noise between boots. auto:
// runs when every side has two or more; else rounds, judged only under --clock icount.
enum class SampleUnit { auto_, round, run };
enum class Better { unknown, higher, lower };

struct CompareOptions {
    Method method = Method::auto_;
    double confidence = 0.95;
    double min_effect_pct = 5;           // changes smaller than this are never significant
    bool force = false;                  // compare different experiments (never different clocks)
    SampleUnit unit = SampleUnit::auto_; // see SampleUnit; round forces verdicts on rounds
    // Set when this comparison is one look of a sequential design (ab): `confidence` is then
    // that look's level, and the text says why it is not the one asked for.
    struct Look {
        size_t number = 0, looks = 0;
        double confidence = 0.95; // over all the looks
    };
    std::optional<Look> look;
};

// A metric's samples on one side, as found in the records.
struct Series {
    std::string id;    // "fork/ops_per_s", "fork/funclat:kernel_clone/avg"
    std::string group; // "fork", "fork/funclat:kernel_clone", "tcp[clients=64]"
    std::string name;  // "ops_per_s", "avg"
    std::string unit;
    Agg agg = Agg::amean;
    Better better = Better::unknown;
    std::vector<double> samples; // one per record: a round
    std::vector<size_t> runs;    // the index of the run each sample came from
};

// A histogram pooled over a side's records: labels and counts of the same buckets.
struct HistSeries {
    std::string id, group, name, unit;
    std::string shape; // buckets' identity; pooled only when equal
    std::vector<std::string> labels;
    std::vector<double> counts; // pooled over the runs
    // Each run's own counts over the same labels (the runs that have the histogram): the
    // boot, not the event, is the unit a difference is tested with.
    std::vector<std::vector<double>> run_counts;
    bool shape_conflict = false;
};

struct Extracted {
    std::vector<Series> metrics;
    std::vector<HistSeries> histograms;
};

// Every metric and histogram in the runs' records, as their descriptions declare them.
Extracted extract(const std::vector<RunFile>& runs);

// The samples a test compares: every round, or one mean (by the metric's kind) per run.
Result<std::vector<double>> test_samples(const Series& s, SampleUnit unit);

struct SideStats {
    std::vector<double> samples; // what the test compares: rounds or per-run means
    std::vector<size_t> strata;  // each sample's host CPUs, an index into Report::strata (or none)
    std::optional<stats::Summary> summary;
    std::string error; // why there is no summary (missing on this side, NaN, ...)
};

// The direction of a change the method found significant (none otherwise). unqualified: the
// change is shown but not judged (Report::no_verdict says why).
enum class ChangeKind { none, better, worse, changed, not_tested, unqualified };

// One decision per metric, the same in compare, report, bisect-step and ab:
// - different: the method finds the change significant and it is at least --min-effect;
// - same: the equivalence test (TOST at 1 - confidence) puts it inside +-min-effect;
// - unknown: neither (too few or too noisy samples, or a method that declined).
enum class Decision { unknown, same, different };

struct Change {
    std::optional<double> pct;
    std::optional<double> p; // Welch's p when it could be computed (none when unqualified)
    bool significant = false; // the verdict is different
    ChangeKind kind = ChangeKind::none;
    Decision verdict = Decision::unknown;
    std::optional<double> equivalence_p; // TOST's p against +-min-effect
    // The change's interval at the comparison's level, in percent of the base: Welch's
    // interval of the difference of means (paired: of the pairs' geometric mean ratio); none
    // with fewer than 2 samples a side.
    std::optional<double> ci_lo_pct, ci_hi_pct;
    // The smallest change (percent of the base) this many samples detect with 80 % power, and
    // the samples a side that would likely decide; none where the spread is unknown.
    std::optional<double> detectable_pct;
    std::optional<size_t> samples_needed;
    size_t strata = 1; // the permutation test permuted within this many host CPU sets
    std::string note; // why unknown: the method declined, or too few samples
};

struct MetricRow {
    std::string id, group, name, unit;
    Agg agg = Agg::amean;
    Better better = Better::unknown;
    std::vector<SideStats> sides;
    std::vector<Change> changes; // changes[i]: sides[i + 1] against sides[0]
};

// A histogram's change, tested with the boot as the unit: the KS distance of the sides'
// pooled events, permuted over the runs. The chi-square test over the pooled events is kept
// as a description only: it treats thousands of events of a few boots as independent.
struct HistChange {
    std::optional<stats::HistogramPermutation> test; // none: not tested (note says why)
    std::optional<stats::Homogeneity> events;         // descriptive only
    size_t runs_base = 0, runs = 0;                   // the boots a side
    double min_p = 1;     // the smallest p these many boots a side can give
    bool significant = false;
    bool unqualified = false; // tested, but no verdict (Report::no_verdict)
    std::string note;         // why not tested, or why no verdict is possible
};

struct HistRow {
    std::string id, group, name, unit;
    std::vector<std::string> labels;
    std::vector<std::vector<double>> counts; // per side, empty where the side lacks it
    std::vector<std::vector<std::vector<double>>> run_counts; // per side, per run, over labels
    std::vector<HistChange> changes;
};

struct SideInfo {
    std::string label;
    std::vector<std::string> files, run_ids;
    std::string kernel_release, build_id;
    std::string qemu, image; // of its first run; "" when not recorded
    std::vector<std::string> host_cpus; // each run's (RunFile::host_cpus)
};

struct Report {
    CompareOptions options;
    std::string clock, clock_detail;
    SampleUnit unit = SampleUnit::round; // as decided for this comparison
    // Why no change is judged, "" when changes are. Set under --unit auto when the samples
    // are rounds of one wall-clock boot a side: they understate the noise between boots.
    std::string no_verdict;
    std::vector<SideInfo> sides;
    std::vector<std::string> warnings;
    // Those of the warnings that say the sides ran under different QEMU or image builds
    // (compare prints them on stderr too).
    std::vector<std::string> environment_warnings;
    // The host CPU sets the permutation test permutes within, when the runs were placed on
    // several and every side ran on each (ab -j N on the wall clock); empty otherwise.
    std::vector<std::string> strata;
    std::vector<MetricRow> metrics;
    std::vector<HistRow> histograms;
};

// Refuses (as an Error) sides that cannot be compared: mixed clocks, different experiments
// (unless options.force), an empty side.
Result<Report> compare_sides(const std::vector<Side>& sides, const CompareOptions& options);

// Decides one metric's change between two sample sets by the chosen method. With strata (a
// stratum per sample, both sides), the permutation test permutes within each.
Change judge_change(std::span<const double> base, std::span<const double> next, double base_mean,
                    double next_mean, Better better, const CompareOptions& options,
                    std::span<const size_t> base_strata = {}, std::span<const size_t> next_strata = {});

enum class Format { terminal, text, markdown, json, csv };
struct RenderOptions {
    Format format = Format::text;
    bool details = false; // min, max, samples and p-values too
    // The metrics a caller decides on (globs, metric_matches; ab's --metric): the verdicts
    // open with theirs, the others' are listed apart after them. Empty: every metric's.
    std::vector<std::string> judged;
};
std::string render(const Report& report, const RenderOptions& options);
nlohmann::json report_json(const Report& report);

// `--fail-on METRIC:+5%`: fail when a metric whose id or name matches the glob METRIC rose
// (+), fell (-) or moved either way (no sign) by at least that much, significantly. Where the
// report gives no verdicts, the rule fires on the change alone (the effect size).
struct FailRule {
    std::string text, pattern;
    double pct = 0;
    int sign = 0; // +1 rise, -1 fall, 0 either
};
Result<FailRule> parse_fail_rule(std::string_view text);
bool metric_matches(const std::string& pattern, const std::string& id, const std::string& name);

struct RuleOutcome {
    std::vector<std::string> fired;     // one line per (rule, metric, side)
    std::vector<std::string> unmatched; // rules that matched no metric
    // One line per (rule, metric, side) where the side has no value to judge: a gate cannot
    // pass what it did not measure (unless --allow-missing).
    std::vector<std::string> missing;
    bool unqualified = false; // a rule fired on an unjudged change (effect size alone)
};
RuleOutcome apply_fail_rules(const Report& report, const std::vector<FailRule>& rules);

// The gate's view of the runs, before any metric: each failed run (its log cut off, a
// timeout, a boot failure) and each error record of a run is a line that fails the gate,
// naming the side, the file and the cause; and so is a later side whose runs are all the base
// side's (the same run ids), a comparison of nothing.
std::vector<std::string> failed_runs(const std::vector<Side>& sides);

// For `initbench report`, which reads sides as compare does: the results files a SIDE names
// (files and directories, comma-separated), compare's default label for it, and the group
// that a record's metrics are listed under ("fork", "fork/funclat:kernel_clone").
Result<std::vector<std::string>> side_files(const std::string& arg);
std::string side_label(const std::string& arg, size_t index, size_t count);
// Every side's label: side_label's, and for sides so named alike the shortest distinct end
// of their paths ("gen/r1", "cloud/r1"); a path given twice gets "#N" the second time.
std::vector<std::string> side_labels(const std::vector<std::string>& args);

// The sides the command line names, with their labels: an `ab` output directory (its plan in
// ab.json) stands for its sides, each its finished boots (runs/LABEL-NNN.json) under its
// label; other arguments are sides as they are (labels: the given, else side_labels).
struct SideArgs {
    std::vector<std::string> args, labels;
    // An ab directory whose looks began: its sides are the boots its last look compared, to be
    // judged at that look's level (a test of all boots at --confidence after the looks would be
    // one more, unplanned look).
    std::optional<CompareOptions::Look> look;
    std::optional<double> look_confidence;
};
Result<SideArgs> expand_sides(const std::vector<std::string>& args, const std::vector<std::string>& labels);

// A directory given as one side must hold the runs of one kernel and one parameter set: the
// first two runs that differ there, named, or "" when they all agree.
std::string pooled_difference(const std::vector<RunFile>& runs);
std::string metric_group(const nlohmann::json& record);
// Host CPU sets (RunFile::host_cpus) in words: "CPU 0 and CPU 1", "CPU 0,1", "not recorded".
std::string host_cpu_words(const std::vector<std::string>& sets);

} // namespace initbench
