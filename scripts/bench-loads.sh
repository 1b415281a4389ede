#!/usr/bin/env bash
# Prints initbench's load rates next to stress-ng's for the same work and worker counts,
# natively on this machine: fork (fork+exit+wait), thread (32 threads created, held,
# ended and joined per batch) and cpu. A benchmark, not a test: the figures are only as
# steady as the machine is quiet.
#
#   scripts/bench-loads.sh [BUILD_DIR] [SECONDS] [WORKER COUNTS...]
#   default: build 10 "1 <CPUs>"
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
seconds=${2:-10}
shift $(($# > 2 ? 2 : $#))
counts=("$@")
((${#counts[@]})) || counts=(1 "$(nproc)")

loadbench=$build/payload/initbench-loadbench
[[ -x $loadbench ]] || { echo "no $loadbench: build first (ninja -C $build initbench-loadbench)" >&2; exit 2; }

need=()
command -v stress-ng > /dev/null || need+=(stress-ng)
python3 -c 'import yaml' 2> /dev/null || need+=(python3-yaml)
if ((${#need[@]})); then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" > /dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One row: our JSON line and stress-ng's YAML, side by side (python reads both formats).
# Rates per CPU-second hold up better than plain rates on a machine others also use.
row() {
  python3 - "$1" "$2" "$3" "$4" << 'EOF'
import json, sys, yaml
load, workers, ours_file, theirs_file = sys.argv[1:]
ours = json.loads(open(ours_file).read().splitlines()[-1])
theirs = yaml.safe_load(open(theirs_file))["metrics"][0]
rate, cpu = ours["ops_per_s"], ours["cpu_s"] / ours["seconds"]
their_rate = theirs["bogo-ops-per-second-real-time"]
their_cpu = (theirs["user-time"] + theirs["system-time"]) / theirs["wall-clock-time"]
eff, their_eff = rate / max(cpu, 1e-9), their_rate / max(their_cpu, 1e-9)
print(f"{load:7} {workers:>3}  {rate:11.1f} {100 * cpu:5.0f}% {eff:11.1f}  "
      f"{their_rate:11.1f} {100 * their_cpu:5.0f}% {their_eff:11.1f}  {rate / their_rate:6.2f} {eff / their_eff:6.2f}")
EOF
}

printf '%s\n' "$(uname -sr), $(nproc) CPUs, ${seconds} s per run, $(stress-ng --version | cut -d' ' -f1-3)"
printf '%-7s %3s  %11s %6s %11s  %11s %6s %11s  %6s %6s\n' load W "initbench/s" CPU "per CPU-s" \
  "stress-ng/s" CPU "per CPU-s" "rate" "per CPU"
for w in "${counts[@]}"; do
  for load in fork thread cpu; do
    case $load in
      fork) ours=(fork) theirs=(--fork "$w") ;;
      thread) ours=(thread thread.threads=32) theirs=(--pthread "$w" --pthread-max 32) ;;
      cpu) ours=(cpu) theirs=(--cpu "$w") ;;
    esac
    "$loadbench" "${ours[0]}" "$seconds" workers="$w" "${ours[@]:1}" > "$tmp/ours.json"
    stress-ng "${theirs[@]}" --timeout "${seconds}s" --metrics-brief --yaml "$tmp/theirs.yaml" > /dev/null 2>&1
    row "$load" "$w" "$tmp/ours.json" "$tmp/theirs.yaml"
  done
done
echo "CPU: CPUs busy on average (100% = one). The last two columns are initbench / stress-ng."
echo "fork: fork+exit+wait both. thread: a thread created, held until its batch of 32 is made,"
echo "ended and joined, both. cpu: the operations differ (initbench: 4096 xorshift steps with"
echo "random writes to 256 KiB; stress-ng: one pass of its cpu methods): compare the CPU column."
