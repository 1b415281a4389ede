#!/usr/bin/env python3
"""bisect-step's good side for interleaved boots, replayed offline on the boots that
`KEEP=DIR INTERLEAVE=yes scripts/bench-bisect.sh` kept: how often a rule would have called a
step good, and how often wrongly.

For each kept step (DIR/trialN/step-NNN-bootB.json beside baseline-NNN-bootB.json, the
verdict lines in DIR/trialN.out) the pairs' log ratios of the fork rate are tested at every
look as bisect-step would: one-sided against ln(1 + MAX_CHANGE), at alpha / looks a look
(alpha spending, rho 1). Printed per rule:
  - replay: good steps called good, and bad steps (slub_debug in the step's QEMU argv)
    called good, within the boots each step really took;
  - resampled: the good steps' pairs drawn with replacement into sequences of MAX_BOOTS
    pairs; at no change (power, mean pairs to decide) and shifted so that the rule's own
    centre (mean or trimmed mean) lies at the limit (the error rate there, promised <= alpha);
  - with --power PCT: the good steps' pairs shifted so that their 20 % trimmed mean lies at a
    change of PCT, and how often the paired test finds it (two-sided at alpha) from n pairs:
    in one look at n, and at looks 2..n under alpha spending. What interleaved boots of this
    host can detect, whatever the command that judges them.

    scripts/replay-pairs.py DIR [--max-change -15] [--max-boots 10] [--trials 4000] [--power -10]

A calibration aid, not a test; needs python3-numpy and python3-scipy. The rules mirror
host/compare/stats.cpp (paired_log_ratio) and host/compare/bisect_decide.cpp (decide_by_pairs);
those are what bisect-step runs."""
import argparse
import json
import math
import re
from pathlib import Path

import numpy as np
from scipy import stats


def fork_rate(path):
    """The harmonic mean of a boot's fork rounds, and whether the step had slub_debug."""
    doc = json.loads(path.read_text())
    rates = [r["metrics"]["ops_per_s"]["value"] for r in doc["records"]
             if r.get("type") == "phase" and r.get("phase") == "fork"]
    slowed = any("slub_debug" in a for a in doc["host"].get("qemu_argv", []))
    return len(rates) / sum(1 / v for v in rates), slowed


def kept_steps(root):
    """(is the step bad, [(baseline rate, step rate), ...] in boot order) for every kept step."""
    for out in sorted(root.glob("trial*.out")):
        trial = out.with_suffix("")
        finals = [line for line in out.read_text().splitlines() if line.startswith("bisect-step: fork/")]
        for k, line in enumerate(finals, 1):
            n = int(re.search(r"\(n=(\d+)\) vs", line).group(1))
            try:
                step = [fork_rate(trial / f"step-{k:03d}-boot{b}.json") for b in range(1, n + 1)]
                base = [fork_rate(trial / f"baseline-{k:03d}-boot{b}.json") for b in range(1, n + 1)]
            except FileNotFoundError:
                continue
            yield step[0][1], [(bs[0], st[0]) for bs, st in zip(base, step)]


def trimmed_p(ratios, bound, trim):
    """Yuen's one-sided p that the trimmed mean of the ratios lies above bound."""
    n = len(ratios)
    g = int(math.floor(trim * n))
    h = n - 2 * g
    x = np.sort(ratios)
    centre = x[g:n - g].mean()
    w = np.clip(x, x[g], x[n - 1 - g])
    var = w.var(ddof=1)
    if var == 0:
        return 0.0 if centre > bound else 1.0
    se = math.sqrt((n - 1) * var / (h * (h - 1)))
    return stats.t.sf((centre - bound) / se, h - 1)


def first_good(pairs, bound, trim, looks, alpha, min_pairs):
    """The pairs at which the rule first calls the step good, or None."""
    for m in looks:
        if m > len(pairs):
            return None
        if m < min_pairs:
            continue
        ratios = np.log(pairs[:m, 1] / pairs[:m, 0])
        if trimmed_p(ratios, bound, trim) < alpha / len(looks):
            return m
    return None


def detects(ratios, alpha):
    """Whether the two-sided paired test at alpha puts the 20 % trimmed mean off 0."""
    p_above = trimmed_p(ratios, 0.0, 0.2)
    return min(p_above, 1 - p_above) < alpha / 2


def print_power(ratios, change_pct, alpha, trials, rng):
    g = int(math.floor(0.2 * len(ratios)))
    centre = np.sort(ratios)[g:len(ratios) - g].mean()
    shifted = ratios - centre + math.log1p(change_pct / 100)
    print(f"pairs of good steps: {len(ratios)}, log ratio sd {ratios.std(ddof=1):.3f}, quartiles "
          f"{np.percentile(ratios, 25):+.3f} {np.percentile(ratios, 75):+.3f}; shifted to {change_pct:+g} %:")
    for n in range(4, 13, 2):
        draws = [rng.choice(shifted, n) for _ in range(trials)]
        once = sum(detects(d, alpha) for d in draws) / trials
        looks = range(2, n + 1)
        spent = sum(any(m >= 3 and detects(d[:m], alpha / len(looks)) for m in looks) for d in draws) / trials
        print(f"  {n:2d} pairs: found in {once:.1%} in one look, {spent:.1%} at looks 2..{n}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--max-change", type=float, default=-15)
    ap.add_argument("--boots", type=int, default=2)
    ap.add_argument("--max-boots", type=int, default=10)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--trials", type=int, default=4000)
    ap.add_argument("--power", type=float, metavar="PCT")
    args = ap.parse_args()
    bound = math.log1p(args.max_change / 100)
    looks = list(range(args.boots, args.max_boots + 1))
    steps = [(bad, np.array(pairs)) for bad, pairs in kept_steps(args.dir)]
    good = [p for bad, p in steps if not bad]
    bad = [p for b, p in steps if b]
    pool = np.concatenate(good)
    ratios = np.log(pool[:, 1] / pool[:, 0])
    print(f"{len(steps)} steps kept ({len(good)} good, {len(bad)} bad), {len(pool)} pairs of good steps; "
          f"{len(looks)} looks at alpha {args.alpha:g} / {len(looks)}")
    rng = np.random.default_rng(1)
    if args.power is not None:
        print_power(ratios, args.power, args.alpha, args.trials, rng)
        return
    for name, trim, min_pairs in [("paired t", 0.0, 3), ("paired, 10 % trimmed", 0.1, 3),
                                  ("paired, 20 % trimmed", 0.2, 3), ("paired, 20 % trimmed, from 2 pairs", 0.2, 2)]:
        def rule(pairs):
            return first_good(pairs, bound, trim, looks, args.alpha, min_pairs)
        long_ones = [rule(p) for p in good if len(p) == args.max_boots]
        wrong = sum(rule(p) is not None for p in bad)
        g = int(math.floor(trim * len(ratios)))
        centre = np.sort(ratios)[g:len(ratios) - g].mean()
        draws = [pool[rng.integers(0, len(pool), args.max_boots)] for _ in range(args.trials)]
        at_zero = [rule(d) for d in draws]
        at_limit = [rule(d * [1, math.exp(bound - centre)]) for d in draws]
        decided = [m for m in at_zero if m]
        print(f"{name}:\n  replay: good steps that ran to {args.max_boots} boots, good at "
              f"{[m if m else '-' for m in long_ones]}; bad steps called good {wrong} of {len(bad)}\n"
              f"  resampled, no change: good in {len(decided) / args.trials:.1%}, at {np.mean(decided):.2f} pairs "
              f"(mean); at the limit: good in {sum(m is not None for m in at_limit) / args.trials:.2%}")


if __name__ == "__main__":
    main()
