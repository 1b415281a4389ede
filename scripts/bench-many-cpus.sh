#!/usr/bin/env bash
# How TCG's threading bears on a machine with more vCPUs than the host has CPUs: one run of
# initbench (`phases=none duration=1`, the default probe) on CPUS vCPUs, booted
#   - as `initbench run` boots it: a host thread per vCPU (`-accel tcg`);
#   - with the same QEMU command line but every vCPU on one host thread in turn
#     (`-accel tcg,thread=single`);
#   - a thread each, without the lpj= that run gives an x86_64 kernel (host/boot/delay_loop.h).
# Prints each one's wall time to QEMU's exit, and the seconds since QEMU started at which the
# kernel had brought its CPUs up. A boot that takes longer than LIMIT seconds is stopped and
# shown as "> LIMIT". The boots run one after the other, never side by side.
#
#   scripts/bench-many-cpus.sh [KERNEL] [CPUS] [LIMIT]   default: Debian's amd64 kernel, 128, 1800
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
kernel=${1:-$("$here/scripts/fetch-debs.sh" kernel amd64)}
cpus=${2:-128}
limit=${3:-1800}
cli=${INITBENCH:-$here/build/host/initbench}
image=${INITBENCH_IMAGE:-$here/build/initbench-x86_64.cpio.gz}
[[ -x $cli && -f $image ]] || { echo "bench-many-cpus: build first (scripts/demo.sh or cmake --build --preset demo)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Seconds since the first line of a log written by stamp() at which the line matching $2 came.
stamp() { python3 -c '
import sys, time
t0 = time.monotonic()
for line in sys.stdin:
    sys.stdout.write("%.2f %s" % (time.monotonic() - t0, line))
    sys.stdout.flush()'; }
at() { awk -v re="$2" '$0 ~ re { print $1; exit }' "$1"; }

report() { # NAME LOG SECONDS
  local up
  up=$(at "$2" "smp: Brought up")
  printf '%-24s %10s s   CPUs up at %s s\n' "$1" "$3" "${up:--}"
}

echo "bench-many-cpus: $cpus vCPUs, $(nproc) host CPUs, $(basename "$kernel")" >&2
code=0
"$cli" run --kernel "$kernel" --image "$image" --accel tcg --cpus "$cpus" --timeout "$limit" \
  --progress --quiet --out "$tmp/r.json" -- initbench.phases=none initbench.duration=1 2>&1 |
  stamp > "$tmp/multi.log" || code=$?
multi=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["host"]["wall"]["total_s"] if d["verdict"]=="ok" else "failed: "+d["verdict"])' "$tmp/r.json")

# The same command line as QEMU's, changed by the python expression $2 on argv; its wall time.
variant() { # NAME EXPRESSION
  local t0 argv secs
  mapfile -t argv < <(python3 -c '
import json, sys
argv = json.load(open(sys.argv[1]))["host"]["qemu_argv"]
exec(sys.argv[2])
print("\n".join(argv))' "$tmp/r.json" "$2")
  t0=$(date +%s.%N)
  timeout "$limit" "${argv[@]}" < /dev/null 2>&1 | stamp > "$tmp/$1.log" || true
  secs=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
  grep -q "reboot: Power down" "$tmp/$1.log" || secs="> $limit"
  echo "$secs"
}
# All vCPUs on one thread; and a thread each without the lpj= that run adds (each CPU then
# calibrates its delay loop itself).
single=$(variant single 'argv[argv.index("-accel") + 1] = "tcg,thread=single"')
calibrating=$(variant calibrating '
i = argv.index("-append") + 1
argv[i] = " ".join(w for w in argv[i].split() if not w.startswith("lpj="))')

report "as run boots it" "$tmp/multi.log" "$multi"
report "one thread (single)" "$tmp/single.log" "$single"
report "a thread each, no lpj=" "$tmp/calibrating.log" "$calibrating"
