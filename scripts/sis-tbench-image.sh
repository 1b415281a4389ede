#!/bin/sh
# An image for the SIS seed with real tbench: Debian's tbench, tbench_srv and client.txt
# packed (dbench package), and the sis_tbench profile's load replaced by the external load
# `tbench` (clients 1, 2, 4, ... up to twice the CPUs, MB/s as the metric, the profile's
# rounds, duration and warm-up). The built-in tcp load stays the no-dependency fallback.
#   scripts/sis-tbench-image.sh [BUILD_DIR] [OUT]
#   initbench run --kernel bzImage --image OUT --cpus 8 --out after.json
set -eu
build=${1:-build}
out=${2:-$build/initbench-sis-tbench-x86_64.cpio.gz}
for p in tbench tbench_srv; do
  command -v "$p" >/dev/null || { echo "$0: no $p: apt-get install dbench" >&2; exit 2; }
done
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT
cat > "$conf" <<'CONF'
include = sis_tbench
description = sis_tbench with Debian's tbench against tbench_srv at 1..2*cpus clients
phases = tbench
load.tbench = tbench -t {duration} -c /payload/share/client.txt {clients} 127.0.0.1
load.tbench.setup = tbench_srv
# tbench_srv's "waiting for connections" stays in its stdio buffer: wait for its port
load.tbench.ready_port = 7003
load.tbench.clients = 1, ..., 2*cpus
load.tbench.metric = Throughput ([0-9.]+) MB/sec
load.tbench.unit = MB/s
CONF
"$build/host/initbench" pack --image "$build/initbench-x86_64.cpio.gz" \
  --program "$(command -v tbench)" --program "$(command -v tbench_srv)" \
  --data /usr/share/dbench/client.txt:/payload/share/client.txt --config "$conf" -o "$out"
