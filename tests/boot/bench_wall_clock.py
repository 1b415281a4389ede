#!/usr/bin/env python3
"""Benchmark (prints figures; not a test): how many rounds the wall clock needs.

Boots Debian's kernel 3*N times under one clock, interleaved: two boots of the plain kernel
(A) for every boot with `slub_debug=FZPU` (B), each boot running the fork load for R rounds.
Then, asking `initbench compare` at its default settings each time:
  1. for k = 1..N boots a side (k*R rounds): is A against a disjoint set of A boots flagged
     (a false alarm), and is A against B detected as a significant fall of fork/ops_per_s?
  2. the same noise with a smaller slowdown: random disjoint sets of k A boots against k
     other A boots whose ops/s are scaled by (1 - e), for e = 0 (false alarms), 15 % and
     30 %; how often is the change detected?

Run from the source tree after a build:
    python3 tests/boot/bench_wall_clock.py --boots 8 --rounds 3 [--clock wall|icount]
        [--dir DIR]   keep the boots' results there and reuse them on the next run
"""
import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bootlib  # noqa: E402

METRIC = "fork/ops_per_s"


def rates(doc):
    return [p["metrics"]["ops_per_s"]["value"] for p in doc["records"] if p.get("type") == "phase"]


def boot(workdir, name, clock, rounds, extra):
    path = Path(workdir) / f"{name}.json"
    if not path.exists():
        r = bootlib.run("initbench.phases=fork", "initbench.duration=1",
                        f"initbench.rounds={rounds}", *extra, extra_args=("--clock", clock),
                        timeout=900)
        if r.code != 0:
            sys.exit(f"{name}: initbench run exited {r.code}: {r.stderr}")
        path.write_text(json.dumps(r.doc))
    doc = json.loads(path.read_text())
    print(f"  {name:6} {' '.join(f'{x:8.2f}' for x in rates(doc))}"
          f"  (wall {doc['host']['wall']['total_s']:.1f} s)", flush=True)
    return str(path)


def judge(base, new):
    p = subprocess.run([bootlib.INITBENCH, "compare", "--format", "json", "--metric", METRIC,
                        ",".join(base), ",".join(new)], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"compare failed ({p.returncode}): {p.stderr}")
    side = next(m for m in json.loads(p.stdout)["metrics"] if m["id"] == METRIC)["sides"][1]
    return side["change"]


def scaled_copy(path, factor, workdir):
    """A copy of a results file whose fork rates are multiplied by `factor`."""
    doc = json.loads(Path(path).read_text())
    for r in doc["records"]:
        if r.get("type") == "phase" and "metrics" in r:
            r["metrics"]["ops_per_s"]["value"] *= factor
    out = Path(workdir) / f"{Path(path).stem}-x{factor:g}.json"
    out.write_text(json.dumps(doc))
    return str(out)


def sequential(a, b, rounds):
    first, second = a[0::2], a[1::2]
    print(f"\n1. the first k boots a side (k*{rounds} rounds); compare's defaults "
          "(Welch 95 %, min effect 5 %):")
    print(f"{'k':>3} {'rounds':>6}   {'A vs A':>9} {'p':>8} {'flagged':>8}   "
          f"{'A vs B':>9} {'p':>8} {'detected':>8}")
    for k in range(1, len(b) + 1):
        aa, ab = judge(first[:k], second[:k]), judge(first[:k], b[:k])
        p = lambda c: f"{c['p']:.4f}" if c["p"] is not None else "-"
        print(f"{k:>3} {k * rounds:>6}   {aa['pct']:+8.2f}% {p(aa):>8} "
              f"{'yes' if aa['significant'] else 'no':>8}   {ab['pct']:+8.2f}% {p(ab):>8} "
              f"{'yes' if ab['verdict'] == 'worse' else 'no':>8}", flush=True)


def resampled(a, rounds, trials, workdir):
    effects = (0.0, 0.15, 0.30)
    scaled = {e: {p: scaled_copy(p, 1 - e, workdir) for p in a} for e in effects if e}
    rng = random.Random(6)
    print(f"\n2. random disjoint sets of k A boots against k other A boots scaled by (1 - e), "
          f"{trials} draws each:")
    heads = "   ".join(f"{'e=' + format(e, '.0%'):>14}" for e in effects)
    print(f"{'k':>3} {'rounds':>6}   {heads}")
    for k in range(1, len(a) // 2 + 1):
        cells = []
        for e in effects:
            hits = 0
            for _ in range(trials):
                pick = rng.sample(a, 2 * k)
                new = pick[k:] if not e else [scaled[e][p] for p in pick[k:]]
                c = judge(pick[:k], new)
                # With one wall-clock run a side compare gives no verdict (significant: null).
                hits += bool(c["significant"]) if not e else c["verdict"] == "worse"
            cells.append(f"{hits / trials:>13.0%}" + (" flagged" if not e else " found  "))
        print(f"{k:>3} {k * rounds:>6}   " + "   ".join(cells), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boots", type=int, default=8, help="N: boots of the slow kernel")
    ap.add_argument("--rounds", type=int, default=3, help="R: rounds per boot")
    ap.add_argument("--clock", choices=["wall", "icount"], default="wall")
    ap.add_argument("--trials", type=int, default=100, help="random draws per cell in part 2")
    ap.add_argument("--dir", help="keep the results here and reuse them")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="initbench-bench-") as tmp:
        workdir = args.dir or tmp
        Path(workdir).mkdir(parents=True, exist_ok=True)
        print(f"{3 * args.boots} boots, {args.rounds} rounds each, clock {args.clock}; "
              "ops/s per round:")
        a, b = [], []
        for i in range(args.boots):
            a.append(boot(workdir, f"A{2 * i + 1}", args.clock, args.rounds, []))
            b.append(boot(workdir, f"B{i + 1}", args.clock, args.rounds, ["slub_debug=FZPU"]))
            a.append(boot(workdir, f"A{2 * i + 2}", args.clock, args.rounds, []))
        sequential(a, b, args.rounds)
        resampled(a, args.rounds, args.trials, tmp)


if __name__ == "__main__":
    main()
