// Whether a bisection's setup can ever decide: the baseline's boots, the boots a step may take
// and the limit. Worked out before a step's first boot, from the baseline alone, so that a
// setup that would skip every commit stops the bisection at once and says what would work.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace initbench {

struct StepBudget {
    double limit_pct = -10; // signed: -3 makes a fall of 3 % or more bad
    size_t boots = 1;       // a step's boots at its first look
    size_t max_boots = 1;   // and at its last (alpha spending shares the level between them)
    double confidence = 0.95;
    bool deterministic = false; // the icount clock: one step boot may be judged
};

struct StepReach {
    bool decides = false;
    // What a step whose metric did not move reaches at its last look: the half-width of the
    // change's interval, in percent of the baseline's mean (0 when the baseline is constant).
    double reach_pct = 0;
    std::string why;    // the figures that decided, one clause
    std::string advice; // when it does not decide: a setup that would, or why none would
};

// The baseline's samples are one per boot: the rounds of one boot share its host's conditions
// and its round 0, so they are not independent samples of the boot-to-boot noise a step is
// judged against. The step is assumed to spread as the baseline did. It decides when the
// interval its last look reaches is narrower than the limit (a commit that did not move is
// then good, one that moved by twice the limit bad), and, on the wall clock, when the
// permutation test can show a change at that look's level with these boots.
StepReach step_reach(std::span<const double> baseline_boots, const StepBudget& budget);

} // namespace initbench
