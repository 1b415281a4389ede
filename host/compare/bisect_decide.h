// bisect-step's decision for `git bisect run`: one metric's samples against a baseline's or
// a threshold, as good, bad or skip with the figures that decided.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace initbench {

// The exit codes `git bisect run` understands: 0 good, 1 bad, 125 skip, >= 128 abort.
enum BisectExit : int {
    kBisectGood = 0,
    kBisectBad = 1,
    kBisectSkip = 125,        // build or boot failed, no result, or too noisy to decide
    kBisectAbort = 128,       // bisect-step's own error: bad command line or baseline
    kBisectInterrupted = 130, // SIGINT/SIGTERM/SIGHUP while building or booting
};

struct StepDecision {
    int exit_code = kBisectSkip;
    std::string why; // one line: the figures and the rule that decided
    bool final = false; // an abort, or a skip that more boots cannot change
};

struct RunFile;

// Against a baseline, `bad_pct` the limit (e.g. -15: a fall of 15 % or more is bad). Two
// samples or more a side: compare's verdict with the limit as its minimum effect: DIFFERENT
// the bad way is bad, SAME or DIFFERENT the good way is good, UNKNOWN a skip. One sample a
// side always skips (no spread to judge by). One sample against several decides only on a
// deterministic clock, by the several's prediction interval against the limit; the wall
// clock skips.
// paired: base[i] and step[i] were booted one after the other (--baseline-kernel). Then a
// step is good by the paired test alone (kPairedTrim below), not by SAME: see decide_by_pairs.
StepDecision decide_against_baseline(std::span<const double> base, std::span<const double> step,
                                     double bad_pct, double confidence, bool deterministic,
                                     bool paired = false);

// Metric `id` of a step's runs against the baseline's: compare's checks (one clock, one
// experiment), then decide_against_baseline on their samples. `paired`: baseline[i] is the
// baseline kernel's boot made beside step[i], so a baseline without the metric is this
// step's bad luck (a skip), not a bad baseline (an abort), and pairs are judged as pairs.
StepDecision judge_runs(const std::vector<RunFile>& baseline, const std::vector<RunFile>& step,
                        const std::string& id, double bad_pct, double confidence,
                        bool deterministic, bool paired);

// The fraction of pairs the paired test cuts from each end (Yuen's 20 % trimmed mean).
inline constexpr double kPairedTrim = 0.2;

// Bad when the step's mean lies beyond `threshold` on the `bad_sign` side (-1: below is bad,
// +1: above is bad), by its confidence interval as above.
StepDecision decide_against_threshold(std::span<const double> step, double threshold, int bad_sign,
                                      double confidence, bool deterministic);

} // namespace initbench
