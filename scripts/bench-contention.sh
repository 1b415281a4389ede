#!/usr/bin/env bash
# How much other work on the host slows a wall-clock boot, and whether the results document
# says so: boots pinned to the host's last CPU, in turn alone, beside a process that spins on
# the first CPU (CPU time only), and beside one that streams memory there (dd of 64 MiB blocks
# from /dev/zero: caches and memory bandwidth, as a build's compiler and linker use them),
# ROUNDS times. Prints each boot's fork rate and host.others_busy_cpus, then one table row per
# kind. A benchmark, not a test: the figures are this host's, on the day.
#
#   scripts/bench-contention.sh [ROUNDS]    default 5 (15 boots, about two minutes)
#   KERNEL=... INITBENCH=cli INITBENCH_IMAGE=image scripts/bench-contention.sh
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
source "$here/scripts/bench-tools.sh"
bench_tools bench-contention
cpus=$(nproc)
((cpus >= 2)) || { echo "bench-contention: needs two host CPUs or more" >&2; exit 2; }

: > "$tmp/rows"
for ((i = 1; i <= rounds; i++)); do
  for mode in alone beside-a-spinner beside-a-memory-stream; do
    other=
    case $mode in
      beside-a-spinner) taskset -c 0 sh -c 'while :; do :; done' & other=$! ;;
      beside-a-memory-stream) taskset -c 0 dd if=/dev/zero of=/dev/null bs=64M 2> /dev/null & other=$! ;;
    esac
    taskset -c $((cpus - 1)) "$cli" run --kernel "$kernel" --image "$image" --quiet --out "$tmp/run.json" \
      -- nokaslr norandmaps initbench.phases=fork initbench.duration=1 initbench.rounds=2
    [[ -z $other ]] || { kill "$other"; wait "$other" 2> /dev/null || true; }
    python3 - "$tmp/run.json" "$mode" <<'PY' | tee -a "$tmp/rows" >&2
import json, statistics, sys
doc = json.load(open(sys.argv[1]))
rates = [r["metrics"]["ops_per_s"]["value"] for r in doc["records"]
         if r.get("type") == "phase" and r.get("phase") == "fork"]
print(sys.argv[2], f'{statistics.mean(rates):.1f}', doc["host"]["others_busy_cpus"])
PY
  done
done

echo "bench-contention: $(date -u +%F), $cpus CPUs, $(uname -r) host, kernel $(basename "$kernel"), boots on CPU $((cpus - 1))"
echo
python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("| boots | n | fork rate (mean, min–max) | host.others_busy_cpus (mean) |")
print("|---|---:|---:|---:|")
for mode in ("alone", "beside-a-spinner", "beside-a-memory-stream"):
    rates = [float(r[1]) for r in rows if r[0] == mode]
    others = [float(r[2]) for r in rows if r[0] == mode and r[2] != "None"]
    print(f"| {mode.replace('-', ' ')} | {len(rates)} | {statistics.mean(rates):.0f} ({min(rates):.0f}–{max(rates):.0f}) | "
          f"{statistics.mean(others) if others else float('nan'):.2f} |")
PY
