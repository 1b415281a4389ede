// `initbench ab`: boots two or more sides (kernels and/or kernel parameters) interleaved,
// A B B A ..., several at once, and judges the chosen metrics after every boot a side under
// alpha spending until each is SAME or DIFFERENT, or the budget ends (UNKNOWN, with the
// change it could have detected). Everything goes to one output directory; a rerun resumes.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
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

void add_ab_command(CLI::App& app);

} // namespace initbench
