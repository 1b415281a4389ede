#!/bin/sh
# An image for the mm_cid seed with its own loads: Debian's stress-ng packed, and the mm_cid
# profile's cpu, fork and thread phases replaced by the seed's three stress-ng commands,
# one worker per CPU ($nproc in the seed, {cpus} here), each run for the phase's duration,
# its bogo-ops/s (real time) as the metric. The rest of the profile stays: the quiet phase
# first, 30 s phases with 30 s of rest, funclat on task_mm_cid_work, user wake-ups. The
# built-in loads stay the no-dependency form (docs/seeds.md says how they differ).
#   scripts/mm-cid-stress-ng-image.sh [BUILD_DIR] [OUT]
#   initbench run --kernel bzImage --image OUT --out after.json
set -eu
build=${1:-build}
out=${2:-$build/initbench-mm-cid-stress-ng-x86_64.cpio.gz}
command -v stress-ng >/dev/null || { echo "$0: no stress-ng: apt-get install stress-ng" >&2; exit 2; }
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT
cat > "$conf" <<'CONF'
include = mm_cid
description = mm_cid with stress-ng's cpu (80 % load), fork and pthread (4 at most) stressors
phases = none, stress_cpu, stress_fork, stress_pthread
load.stress_cpu = stress-ng --cpu {cpus} --cpu-load 80 -t {duration} --metrics-brief
load.stress_cpu.metric = cpu +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)
load.stress_cpu.unit = bogo-ops/s
load.stress_fork = stress-ng --fork {cpus} -t {duration} --metrics-brief
load.stress_fork.metric = fork +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)
load.stress_fork.unit = bogo-ops/s
load.stress_pthread = stress-ng --pthread {cpus} --pthread-max 4 -t {duration} --metrics-brief
load.stress_pthread.metric = pthread +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)
load.stress_pthread.unit = bogo-ops/s
CONF
"$build/host/initbench" pack --image "$build/initbench-x86_64.cpio.gz" \
  --program "$(command -v stress-ng)" --config "$conf" -o "$out"
