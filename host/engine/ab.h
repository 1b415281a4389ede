// `initbench ab`: boots two or more sides (kernels and/or kernel parameters) interleaved,
// A B B A ..., several at once, and judges the chosen metrics after every boot a side under
// alpha spending until each is SAME or DIFFERENT, or the budget ends (UNKNOWN, with the
// change it could have detected). Everything goes to one output directory; a rerun resumes.
#pragma once

#include "host/boot/boot_backend.h"
#include "host/engine/ab_plan.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

// Exit codes of `initbench ab` (also in its --help and docs/compare.md).
enum AbExit : int {
    kAbDecided = 0,     // every chosen metric is SAME or DIFFERENT
    kAbFailed = 1,      // a boot failed (error records, timeout, boot failure): never passes
    kAbUsage = 2,       // bad command line, or an output directory of another experiment
    kAbRefused = 3,     // compare refused the sides (different experiments, clocks)
    kAbUndecided = 4,   // the budget ended with a metric still UNKNOWN
    kAbInterrupted = 130,
};

// Where boot i of k sides falls: A B B A A B B A ... for two sides, and the same mirrored
// blocks for more, so that a drifting host falls on every side alike.
size_t interleaved_side(size_t i, size_t sides);

// Boots at once on host CPUs that differ in speed: each boot runs on a slot (host CPUs) fixed
// in advance, side s's i-th boot (from 1) on slot (i - 1 + s) % jobs, so that every side's
// boots go round every slot alike and, at each multiple of `jobs` boots a side, each side has
// as many boots on each slot. ab then looks at those multiples only.
size_t slot_of_boot(size_t side, size_t index, size_t jobs);

// Which position of the interleaved order each of `jobs` slots starts next. Greedy (no slots
// given): any free slot takes the first position not started. Fixed (a slot per position): a
// slot takes only its own positions, in order, and none more than two rounds of slots past the
// first one unfinished, so that a fast slot does not boot far beyond the next look.
class SlotSchedule {
public:
    SlotSchedule(size_t positions, size_t jobs, std::vector<size_t> slot_of_position = {});
    // A position whose boot is kept from an earlier run: it counts as started and finished.
    void kept(size_t position);
    // The position `slot` starts now (marked started), or none: none left, or not its turn yet.
    std::optional<size_t> take(size_t slot);
    void finished(size_t position);

private:
    size_t jobs_;
    std::vector<size_t> slot_; // per position; empty: greedy
    std::vector<bool> started_, finished_;
};

// One side's finished boots in index order. Boots run several at once and may end out of
// order (boot 2 before boot 1); a look uses boots 1..n, so a boot that ends early waits here
// until those before it have ended.
class BootsInOrder {
public:
    // Boot `index` (1-based) ended with its results at `path`.
    void finished(size_t index, std::string path) {
        early_[index] = std::move(path);
        for (auto it = early_.find(done_.size() + 1); it != early_.end(); it = early_.find(done_.size() + 1)) {
            done_.push_back(std::move(it->second));
            early_.erase(it);
        }
    }
    // Boots 1..size(), every one ended.
    const std::vector<std::string>& done() const { return done_; }
    size_t size() const { return done_.size(); }

private:
    std::vector<std::string> done_;
    std::map<size_t, std::string> early_; // ended before one with a lower index
};

// Checks the plan the options describe (sides, image, parameters, the output directory's
// earlier plan), then boots on this host until decided: one of AbExit.
int run_ab(AbCli cli);

// The boots and looks of a checked plan, through `backend` (this host's child processes, or
// a test's fake): the sides booted interleaved on `slots` (host CPUs per boot at once; fixed:
// each boot on the slot slot_of_boot gives it, looks every slots.size() boots a side), the
// outputs written into cli.out_dir at each look. One of AbExit.
int drive_ab(AbCli cli, std::vector<SidePlan> sides, std::vector<std::vector<unsigned>> slots, bool fixed_slots,
             BootBackend& backend);

} // namespace initbench
