#!/usr/bin/env bash
# How often initbench's verdicts are wrong, measured: `initbench ab` run TRIALS times on
#   - A/A: one kernel against itself (the same parameters on both sides): every DIFFERENT is
#     a false alarm. Goal <= 5 % (aim <= 2 %);
#   - near-null, under icount: trial i adds fork.spin_us=i (0.02 % an us, far below
#     --min-effect). An A/A trial under icount boots the same instructions twice, so it cannot
#     show the timing part of each round's rate that any change deals again; this row can.
#     Every DIFFERENT is a false alarm;
#   - power: the same kernel with the fork load slowed by a known share, EFFECTS percent
#     (fork.spin_us, each operation's spin worked out from one calibration boot of the
#     clock): every DIFFERENT in the worse direction is a detection, with the boots a side it
#     took. The row also shows the median change ab measured, the effect's true size;
#   - histograms A/A (HIST_AA=N): N wall-clock boots of one kernel, split at random in halves
#     HIST_SPLITS times (default 60), each split compared by `initbench compare`: every
#     histogram called "differ" is a false alarm. Goal <= 5 %. The splits share their boots,
#     so the row is a calibration of the rule, not independent trials;
# on the instruction-counting clock and on the wall clock, at ab's defaults (--method auto:
# Welch's t under icount, the permutation test on the wall clock; 95 %; -j as ab chooses) but
# --min-effect 1 % unless MIN_EFFECT says: at ab's 5 % a 2 % change is never DIFFERENT. It
# prints one table; paste it into docs/benchmarks.md with the machine and the date. A benchmark,
# not a test: hundreds of boots (an icount trial is 4 boots).
#
#   scripts/bench-verdicts.sh [TRIALS] [MAX_BOOTS] [EFFECTS]   default: 100, 6, "2 5 10" ("": none)
#   KERNEL=... CLOCKS="icount wall" JOBS=(ab's default) MIN_EFFECT=1 SPIN_US=(calibrated) AA=no (power rows only)
#   NEAR_NULL="icount" (the clocks that get the near-null row; "" for none) INITBENCH=cli INITBENCH_IMAGE=image scripts/bench-verdicts.sh
#   HIST_AA=12 HIST_SPLITS=60 scripts/bench-verdicts.sh 0   the histogram A/A row alone
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
trials=${1:-100}
max_boots=${2:-6}
effects=${3-2 5 10} # "" for none (A/A rows only)
min_effect=${MIN_EFFECT:-1}
clocks=${CLOCKS:-icount wall}
jobs=${JOBS:-} # "": ab's own (icount: a boot per host CPU; wall: one at a time, pinned)
source "$here/scripts/bench-tools.sh"
bench_tools bench-verdicts
experiment=(nokaslr norandmaps initbench.phases=fork initbench.duration=1 initbench.rounds=2)

# One ab trial; prints "VERDICT PCT BOOTS_A_SIDE" of fork/ops_per_s.
trial() { # CLOCK SECOND_SIDE_PARAMS
  local out=$tmp/t code=0
  rm -rf "$out"
  "$cli" ab -o "$out" --kernel "$kernel" --image "$image" --clock "$1" ${jobs:+-j "$jobs"} \
    --max-boots "$max_boots" --min-effect "$min_effect" --force --metric fork/ops_per_s --params '' --params "$2" \
    -- "${experiment[@]}" > "$tmp/ab.out" 2>&1 || code=$?
  # 4 without a comparison: no look was reached (boots failed); a failed trial, not the end.
  if [[ $code != 0 && $code != 4 || ! -f $out/comparison.json ]]; then
    echo "bench-verdicts: ab exited $code:" >&2
    tail -15 "$tmp/ab.out" >&2
    echo "failed - -"
    return
  fi
  python3 - "$out/comparison.json" <<'PY'
import json, sys
ab = json.load(open(sys.argv[1]))["ab"]
v = ab["verdicts"][0]
print(v["verdict"], f'{v["pct"]:.2f}', ab["boots_a_side"])
PY
}

# Runs TRIALS trials and prints the table row: how many of each verdict, the mean boots a side.
# In SECOND_SIDE_PARAMS, {i} stands for the trial's number.
row() { # NAME CLOCK SECOND_SIDE_PARAMS
  local name=$1 clock=$2 params=$3 line
  : > "$tmp/rows"
  for ((i = 1; i <= trials; i++)); do
    line=$(trial "$clock" "${params//\{i\}/$i}")
    echo "$line" >> "$tmp/rows"
    echo "  $name $clock trial $i/$trials: $line" >&2
  done
  python3 - "$tmp/rows" "$name" "$clock" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
n = len(rows)
count = lambda v: sum(r[0] == v for r in rows)
boots = [int(r[2]) for r in rows if r[2] != "-"]
mean = sum(boots) / len(boots) if boots else float("nan")
pcts = sorted(float(r[1]) for r in rows if r[1] != "-")
median = f"{pcts[len(pcts) // 2]:+.2f} %" if pcts else "-"
print(f"| {sys.argv[2]} | {sys.argv[3]} | {n} | {count('different')} ({100*count('different')/n:.1f} %) | "
      f"{count('same')} | {count('unknown')} | {count('failed')} | {mean:.2f} | {median} |")
PY
}

# The fork rate (mean of the rounds) of one boot with SPIN us of spin per operation on CLOCK.
fork_rate() { # CLOCK SPIN
  "$cli" run --kernel "$kernel" --image "$image" --clock "$1" --quiet --out "$tmp/calibrate.json" \
    -- "${experiment[@]}" "initbench.fork.spin_us=$2"
  python3 - "$tmp/calibrate.json" <<'PY'
import json, statistics, sys
doc = json.load(open(sys.argv[1]))
print(statistics.mean(r["metrics"]["ops_per_s"]["value"] for r in doc["records"]
                      if r.get("type") == "phase" and r.get("phase") == "fork"))
PY
}

# The spin in us that slows the fork rate by PCT percent on CLOCK, measured: a first guess
# from the operation's period, then corrected from the rate each spin gave until it is within
# a tenth of the target (at most four corrections). The guess alone is not enough under
# icount: any change deals each round's timing part again (fork.spin_us=116 moved round 0 by
# 0.00 % and round 1 by -2.3 %; docs/benchmarks.md), so a spin meant for -2 % gave -1 %. The
# table's last column is the change the trials measured.
spin_for() { # CLOCK PCT
  local base spin rate next i
  # SPIN_US=N: that spin, uncalibrated (single wall-clock boots under TCG are too noisy to
  # calibrate by: the row's median change is then the effect's measured size).
  if [[ -n ${SPIN_US:-} ]]; then
    echo "$SPIN_US"
    return
  fi
  base=$(fork_rate "$1" 0)
  spin=$(python3 -c "print(max(1, round(1e6 / $base * $2 / (100 - $2))))")
  for ((i = 0; i < 4; i++)); do
    rate=$(fork_rate "$1" "$spin")
    echo "  calibrating -$2 %: spin $spin us: $(python3 -c "print(f'{100 * ($rate / $base - 1):+.2f} %')")" >&2
    next=$(python3 -c "
got, want = 1 - $rate / $base, $2 / 100
print($spin if abs(got - want) <= 0.1 * want else max(1, round($spin * want / max(got, 1e-4))))")
    [[ $next == "$spin" ]] && break
    spin=$next
  done
  echo "$spin"
}

# N boots of one kernel on the wall clock, split in halves at random; prints the table row of
# the histograms' verdicts over every split.
histogram_aa() { # BOOTS SPLITS
  local i
  for ((i = 1; i <= $1; i++)); do
    "$cli" run --kernel "$kernel" --image "$image" --quiet --out "$tmp/hist-$i.json" -- "${experiment[@]}" ||
      echo "  histograms A/A: boot $i failed" >&2
  done
  python3 - "$cli" "$tmp" "$1" "$2" <<'PY'
import glob, json, random, subprocess, sys
cli, tmp, boots, splits = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
runs = sorted(glob.glob(f"{tmp}/hist-*.json"))
rng = random.Random(53)
tests = differ = undecided = 0
for s in range(splits):
    order = rng.sample(runs, len(runs))
    half = len(order) // 2
    out = subprocess.run([cli, "compare", ",".join(order[:half]), ",".join(order[half:2 * half]), "--format", "json"],
                         capture_output=True, text=True)
    for h in json.loads(out.stdout)["histograms"]:
        for c in h["changes"]:
            tests += 1
            differ += c["significant"] is True
            undecided += c["significant"] is None
    print(f"  histograms A/A split {s + 1}/{splits}: {differ} differ of {tests}", file=sys.stderr)
print(f"| histograms A/A ({len(runs)} boots, {splits} random splits of {len(runs) // 2} a side) | wall | {tests} tests | "
      f"{differ} differ ({100 * differ / max(tests, 1):.1f} %) | | {undecided} no verdict | {boots - len(runs)} | | |")
PY
}

{
  echo "bench-verdicts: $(date -u +%F), $(nproc) CPUs, $(uname -r) host, kernel $(basename "$kernel"),"
  echo "ab --max-boots $max_boots -j ${jobs:-default} --min-effect $min_effect, fork/ops_per_s, ${experiment[*]}"
  echo
  echo "| trial | clock | trials | DIFFERENT | SAME | UNKNOWN | failed | mean boots a side | median change |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
  [[ -z ${HIST_AA:-} ]] || histogram_aa "$HIST_AA" "${HIST_SPLITS:-60}"
  for clock in $clocks; do
    ((trials > 0)) || break
    [[ ${AA:-yes} == no ]] || row "A/A" "$clock" ""
    [[ " ${NEAR_NULL-icount} " != *" $clock "* ]] || row "near-null (fork.spin_us=trial number)" "$clock" "initbench.fork.spin_us={i}"
    for pct in $effects; do
      spin=$(spin_for "$clock" "$pct")
      row "power: -$pct % (fork.spin_us=$spin)" "$clock" "initbench.fork.spin_us=$spin"
    done
  done
}
