#!/usr/bin/env bash
# What a boot costs, and what initbench adds to it: on one kernel, in one run, with the
# boots interleaved so that the machine's mood falls on all of them alike.
#   - a bare BusyBox initramfs (/init powers off at once), booted as a bzImage and through PVH,
#     on QEMU's pc machine, and through PVH on microvm (run --machine microvm);
#   - initbench with `phases=none duration=1`, booted the same three ways;
#   - each initbench boot against its bare boot: the ratio, and the goals
#     initbench(PVH) <= 1.15 x (bare PVH + 1 s), microvm's bare boot 30 % below pc's and
#     initbench on microvm <= 1.10 x (its bare boot + 1 s).
# Every boot is `initbench run` with the same QEMU command line (TCG, 1 CPU, 1024 MiB); the
# wall time is QEMU's, from start to exit. Medians of REPEAT boots each.
#
#   scripts/bench-boot.sh [KERNEL] [REPEAT]     default: Debian's amd64 kernel, 3
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
kernel=${1:-$("$here/scripts/fetch-debs.sh" kernel amd64)}
repeat=${2:-3}
cli=$here/build/host/initbench
image=$here/build/initbench-x86_64.cpio.gz
[[ -x $cli && -f $image ]] || { echo "bench-boot: build first (scripts/demo.sh or cmake --build --preset demo)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The bare image: Debian's static BusyBox as the whole userland.
mkdir -p "$tmp/bare/bin"
cp /bin/busybox "$tmp/bare/bin/busybox"
printf '#!/bin/busybox sh\n/bin/busybox poweroff -f\n' > "$tmp/bare/init"
chmod +x "$tmp/bare/init"
(cd "$tmp/bare" && find . | cpio -o -H newc --quiet | gzip -9) > "$tmp/bare.cpio.gz"

# Prints QEMU's wall time of one boot. The bare image prints no records, so `run` calls it a
# boot failure (exit 3): only the time counts then.
boot() { # IMAGE PROTOCOL MACHINE [PARAM...]
  local img=$1 protocol=$2 machine=$3 code=0
  shift 3
  "$cli" run --kernel "$kernel" --image "$img" --accel tcg --boot "$protocol" --machine "$machine" --quiet \
    --out "$tmp/r.json" -- "$@" || code=$?
  python3 - "$tmp/r.json" "$code" "$img" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
bare = sys.argv[3].endswith("bare.cpio.gz")
if not bare and doc["verdict"] != "ok":
    sys.exit(f"bench-boot: initbench boot failed: {doc['verdict']} ({doc['reason']})")
print(doc["host"]["wall"]["total_s"])
PY
}

declare -A times
cases=("bare bzimage pc" "bare pvh pc" "bare pvh microvm" "initbench bzimage pc" "initbench pvh pc"
       "initbench pvh microvm")
boot "$image" pvh pc initbench.phases=none initbench.duration=1 > /dev/null # extracts the vmlinux once
for ((i = 0; i < repeat; i++)); do
  for c in "${cases[@]}"; do
    read -r what protocol machine <<< "$c"
    if [[ $what == bare ]]; then
      t=$(boot "$tmp/bare.cpio.gz" "$protocol" "$machine")
    else
      t=$(boot "$image" "$protocol" "$machine" initbench.phases=none initbench.duration=1)
    fi
    times[$c]+="$t "
    echo "bench-boot: $c: $t s" >&2
  done
done

python3 - "$kernel" "$repeat" "${times[bare bzimage pc]}" "${times[bare pvh pc]}" "${times[bare pvh microvm]}" \
  "${times[initbench bzimage pc]}" "${times[initbench pvh pc]}" "${times[initbench pvh microvm]}" <<'PY'
import statistics, sys
kernel, repeat = sys.argv[1], sys.argv[2]
bare_bz, bare_pvh, bare_mvm, ib_bz, ib_pvh, ib_mvm = (statistics.median(map(float, a.split())) for a in sys.argv[3:9])
print(f"kernel {kernel}, median of {repeat} boots each (QEMU start to exit, TCG, 1 CPU)")
print(f"{'':28}{'bzImage':>10}{'PVH':>10}{'microvm':>10}{'PVH/bzImage':>13}{'microvm/PVH':>13}")
print(f"{'bare BusyBox init':28}{bare_bz:>9.2f}s{bare_pvh:>9.2f}s{bare_mvm:>9.2f}s"
      f"{bare_pvh / bare_bz:>13.2f}{bare_mvm / bare_pvh:>13.2f}")
print(f"{'initbench none, 1 s':28}{ib_bz:>9.2f}s{ib_pvh:>9.2f}s{ib_mvm:>9.2f}s"
      f"{ib_pvh / ib_bz:>13.2f}{ib_mvm / ib_pvh:>13.2f}")
print(f"{'initbench / bare':28}{ib_bz / bare_bz:>10.2f}{ib_pvh / bare_pvh:>10.2f}{ib_mvm / bare_mvm:>10.2f}")
def goal(what, value, limit):
    print(f"goal: {what} {value:.2f} <= {limit:.2f}: {'met' if value <= limit else 'not met'}")
goal("initbench PVH (s), 1.15 x (bare PVH + 1 s)", ib_pvh, 1.15 * (bare_pvh + 1))
goal("microvm's bare boot against pc's, 0.70", bare_mvm / bare_pvh, 0.70)
goal("initbench microvm (s), 1.10 x (bare microvm + 1 s)", ib_mvm, 1.10 * (bare_mvm + 1))
PY
