#!/usr/bin/env bash
# How often `git bisect run initbench bisect-step` ends on the right commit, measured: a
# synthetic history of COMMITS commits in a temporary git repository whose "build" leaves
# Debian's kernel and a parameters file, and from one random commit on adds a real kernel
# parameter that slows the fork load (BAD_PARAM, default init_on_free=1: about -6 % under
# icount on Debian's 6.1). Each trial bisects a fresh history against one baseline and
# prints whether it named the first bad commit, its steps that were not skips, its skips
# and its boots. Goals (issue: verdicts to gate on): the first bad commit in >= 19 of 20
# trials under icount, >= 18 of 20 on the wall clock, and at most log2(COMMITS) + 1 steps
# that are not skips. A benchmark, not a test: each trial is about log2(COMMITS) steps of
# BOOTS to MAX_BOOTS boots.
#
#   scripts/bench-bisect.sh [TRIALS] [COMMITS]     default: 20, 64
#   CLOCK=icount|wall BAD_PARAM=init_on_free=1 MAX_CHANGE=-3% BASELINE_BOOTS=2 BOOTS=2 MAX_BOOTS=3
#   SEED=1 KERNEL=... INITBENCH=cli INITBENCH_IMAGE=image scripts/bench-bisect.sh
# INTERLEAVE=yes: each step also boots the good kernel beside it (bisect-step
# --baseline-kernel, with the first commit's parameters), so that a drifting host moves both
# sides alike. KEEP=DIR keeps each trial's
# bisect-step output, bisect log and every boot's results there (trialN.out, trialN.log,
# trialN/), to see why a step skipped.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
trials=${1:-20}
commits=${2:-64}
clock=${CLOCK:-icount}
bad_param=${BAD_PARAM:-init_on_free=1}
max_change=${MAX_CHANGE:--3%}
baseline_boots=${BASELINE_BOOTS:-2}
boots=${BOOTS:-2}
max_boots=${MAX_BOOTS:-3}
RANDOM=${SEED:-1}
source "$here/scripts/bench-tools.sh"
bench_tools bench-bisect
experiment="nokaslr norandmaps initbench.phases=fork initbench.duration=1 initbench.rounds=2"

# The baseline: BASELINE_BOOTS boots of the good experiment, shared by every trial.
baseline=()
for ((b = 1; b <= baseline_boots; b++)); do
  # shellcheck disable=SC2086 # the experiment is a list of kernel parameters
  "$cli" run --kernel "$kernel" --image "$image" --clock "$clock" --quiet \
    --out "$tmp/baseline$b.json" -- $experiment
  baseline+=("$tmp/baseline$b.json")
done
baseline_list=$(IFS=,; echo "${baseline[*]}")
echo "$experiment" > "$tmp/good.params"

# A history of COMMITS commits, "change 1" .. "change N"; from change FIRST_BAD on, the
# kernel parameters the build leaves include BAD_PARAM.
make_history() { # REPO FIRST_BAD
  local repo=$1 first_bad=$2 params=$experiment n
  mkdir -p "$repo"
  git -C "$repo" init -q
  git -C "$repo" config user.email bench@example.invalid
  git -C "$repo" config user.name bench-bisect
  printf '#!/bin/sh\nset -e\nmkdir -p out\ncp kernel.params out/params\nln -sf "%s" out/bzImage\n' \
    "$kernel" > "$repo/build.sh"
  chmod +x "$repo/build.sh"
  echo out/ > "$repo/.gitignore"
  for ((n = 1; n <= commits; n++)); do
    ((n == first_bad)) && params="$params $bad_param"
    echo "$params" > "$repo/kernel.params"
    echo "change $n" > "$repo/CHANGES"
    git -C "$repo" add -A
    git -C "$repo" commit -q -m "change $n"
  done
}

# One trial; prints "FIRST_BAD FOUND STEPS SKIPS BOOTS" (FOUND is the change bisect named,
# or "none" when it ended without one).
trial() { # FIRST_BAD
  local repo=$tmp/repo saved=$tmp/saved found
  rm -rf "$repo" "$saved"
  make_history "$repo" "$1"
  (
    cd "$repo"
    git bisect start HEAD "$(git rev-list --max-parents=0 HEAD)" > /dev/null
    interleave=()
    [[ ${INTERLEAVE:-no} == yes ]] && interleave=(--baseline-kernel "$kernel" --baseline-params-file "$tmp/good.params")
    git bisect run "$cli" bisect-step --kernel out/bzImage --image "$image" --clock "$clock" "${interleave[@]}" \
      --params-file out/params --metric fork/ops_per_s --baseline "$baseline_list" \
      --max-change "$max_change" --boots "$boots" --max-boots "$max_boots" \
      --save-dir "$saved" -- ./build.sh > "$tmp/bisect.out" 2>&1 || true
    git bisect log > "$tmp/bisect.log"
    git bisect reset > /dev/null 2>&1
  )
  found=$(sed -n 's/^# first bad commit: \[[0-9a-f]*\] change \([0-9]*\)$/\1/p' "$tmp/bisect.log")
  # The bisection's two ends, marked by `git bisect start`, are not steps.
  echo "$1 ${found:-none} $(($(grep -cE '^# (good|bad):' "$tmp/bisect.log") - 2)) \
$(grep -c '^# skip:' "$tmp/bisect.log") $(find "$saved" -name '*.json' 2> /dev/null | wc -l)"
}

: > "$tmp/rows"
for ((i = 1; i <= trials; i++)); do
  first_bad=$((2 + RANDOM % (commits - 1))) # change 1 is the good end; 2..COMMITS
  line=$(trial "$first_bad")
  echo "$line" >> "$tmp/rows"
  if [[ -n ${KEEP:-} ]]; then
    mkdir -p "$KEEP"
    cp "$tmp/bisect.out" "$KEEP/trial$i.out"
    cp "$tmp/bisect.log" "$KEEP/trial$i.log"
    rm -rf "$KEEP/trial$i" && cp -a "$tmp/saved" "$KEEP/trial$i" # -a: the times give the boots' order
  fi
  echo "  trial $i/$trials: first bad, found, steps, skips, boots: $line" >&2
done

echo "bench-bisect: $(date -u +%F), $(nproc) CPUs, $(uname -r) host, kernel $(basename "$kernel"),"
echo "$commits commits, bad from a random one on by $bad_param; bisect-step --clock $clock --max-change $max_change"
echo "--boots $boots --max-boots $max_boots against $baseline_boots baseline boots${INTERLEAVE:+ (interleave: $INTERLEAVE)}; $experiment"
echo
python3 - "$tmp/rows" "$clock" "$commits" <<'PY'
import math, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
n = len(rows)
right = sum(r[0] == r[1] for r in rows)
steps = [int(r[2]) for r in rows]
skips = [int(r[3]) for r in rows]
boots = [int(r[4]) for r in rows]
limit = math.ceil(math.log2(int(sys.argv[3]))) + 1
print("| clock | trials | first bad commit found | steps (mean, max) | over the step limit | skips | boots a trial (mean) |")
print("|---|---:|---:|---:|---:|---:|---:|")
print(f"| {sys.argv[2]} | {n} | {right} ({100 * right / n:.0f} %) | {sum(steps) / n:.1f}, {max(steps)} | "
      f"{sum(s > limit for s in steps)} (limit {limit}) | {sum(skips)} | {sum(boots) / n:.1f} |")
wrong = [r for r in rows if r[0] != r[1]]
for r in wrong:
    print(f"\nwrong: first bad change {r[0]}, bisect named {r[1]}")
PY
