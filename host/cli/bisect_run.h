// `initbench bisect GOOD BAD [bisect-step's options] -- BUILD...`: a whole bisection that
// cannot be set up to fail silently. It boots the good end as the baseline, checks that the
// bad end is bad by the same rule, and only then hands the range to `git bisect run
// initbench bisect-step`.
#pragma once

namespace CLI {
class App;
}

namespace initbench {

enum BisectRunExit : int {
    kBisectRunFound = 0,     // git bisect named the first bad commit
    kBisectRunEnds = 1,      // the range's ends are not good and bad by the rule: nothing bisected
    kBisectRunUsage = 2,     // a bad command line, a git error, a bisection already running
    kBisectRunUndecided = 3, // git bisect ended without naming a commit (skips left)
    kBisectRunInterrupted = 130,
};

void add_bisect_run_command(CLI::App& app);

} // namespace initbench
