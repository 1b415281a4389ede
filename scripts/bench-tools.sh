# Sourced by the benchmarks that boot for an hour or more (bench-verdicts.sh, bench-bisect.sh):
# `bench_tools NAME` sets kernel, cli and image (KERNEL, INITBENCH and INITBENCH_IMAGE, or else
# Debian's kernel and this tree's build) and tmp, a directory removed on exit that holds the
# copies of cli and image the run uses: a rebuild during the run must not change them. Under
# icount, the image rebuilt after a change to the loads' declarations alone moved the fork rate
# by 3 %.
# shellcheck shell=bash
bench_tools() { # NAME
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  kernel=${KERNEL:-$("$here/scripts/fetch-debs.sh" kernel amd64)}
  cli=${INITBENCH:-$here/build/host/initbench}
  image=${INITBENCH_IMAGE:-$here/build/initbench-x86_64.cpio.gz}
  [[ -x $cli && -f $image ]] || { echo "$1: build first (scripts/demo.sh)" >&2; exit 2; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cp "$cli" "$tmp/initbench" && cli=$tmp/initbench
  cp "$image" "$tmp/image.cpio.gz" && image=$tmp/image.cpio.gz
}
