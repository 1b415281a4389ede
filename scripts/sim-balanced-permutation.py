#!/usr/bin/env python3
"""How much power ab's balanced `-j 2` design loses on the wall clock when the permutation
test is not told which host CPU each boot ran on, simulated.

Two host CPUs, one slower by a factor (this machine's CPU 0 ran at 0.6 of CPU 1); 6 boots a
side, balanced as ab places them (A on CPUs 0 1 0 1 0 1, B on 1 0 1 0 1 0); each boot's rate
is the CPU's speed times the side's effect times normal noise. Each trial is judged by the
permutation test of the means over all 924 splits (what ab ran before compare took the host
CPUs as strata) and by one that permutes only within each CPU (400 splits; what compare runs
now). Prints, per row, how often each rejects at 5 %: with no
effect that is the false alarm rate, with one it is the power. A simulation, not a
measurement of initbench: it shows the mechanism, not this host's figures.

    scripts/sim-balanced-permutation.py [TRIALS]   default 200
"""
import itertools
import random
import statistics
import sys

CPU_A = (0, 1, 0, 1, 0, 1)
CPU_B = (1, 0, 1, 0, 1, 0)


def mean_gap(a, b):
    return abs(statistics.mean(a) - statistics.mean(b))


def splits(values, k):
    """Every way to take k of values for the first side: (first, rest)."""
    for chosen in itertools.combinations(range(len(values)), k):
        taken = set(chosen)
        yield ([values[i] for i in chosen], [v for i, v in enumerate(values) if i not in taken])


def p_value(a, b, strata_a=None, strata_b=None):
    """Share of relabellings whose mean gap is at least the observed one; with strata, labels
    move only within a stratum."""
    observed = mean_gap(a, b) - 1e-12
    if strata_a is None:
        groups = [(a + b, len(a))]
    else:
        groups = []
        for s in sorted(set(strata_a) | set(strata_b)):
            ga = [v for v, c in zip(a, strata_a) if c == s]
            gb = [v for v, c in zip(b, strata_b) if c == s]
            groups.append((ga + gb, len(ga)))
    hits = total = 0
    for combo in itertools.product(*(list(splits(values, k)) for values, k in groups)):
        first = [v for part, _ in combo for v in part]
        rest = [v for _, part in combo for v in part]
        total += 1
        hits += mean_gap(first, rest) >= observed
    return hits / total


def row(trials, effect, cv, slow, rng):
    plain = within = 0
    for _ in range(trials):
        def rate(cpu, e):
            return (slow if cpu == 0 else 1.0) * (1 + e) * rng.gauss(1, cv)
        a = [rate(c, 0) for c in CPU_A]
        b = [rate(c, effect) for c in CPU_B]
        plain += p_value(a, b) < 0.05
        within += p_value(a, b, CPU_A, CPU_B) < 0.05
    print(f"| {effect:+.0%} | {cv:.0%} | {slow:g} | {trials} | {plain} ({100 * plain / trials:.1f} %) | "
          f"{within} ({100 * within / trials:.1f} %) |")


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rng = random.Random(1)
    print("| effect | noise CV | slow CPU | trials | all splits reject | within each CPU reject |")
    print("|---:|---:|---:|---:|---:|---:|")
    for effect, cv, slow in ((0, 0.10, 0.6), (-0.2, 0.10, 0.6), (-0.2, 0.20, 0.6), (-0.2, 0.10, 1.0)):
        row(trials, effect, cv, slow, rng)


if __name__ == "__main__":
    main()
