#!/usr/bin/env bash
# README's first command: install, build, unpack Debian's current amd64 kernel (no install
# into /boot), boot it with the default experiment and print the results.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh demo
# Only what the demo runs: the host CLI and the x86_64 image (no tests, no aarch64).
cmake --preset demo
cmake --build --preset demo
kernel=$(scripts/fetch-debs.sh kernel amd64)
rm -f build/results.json
status=0
build/host/initbench run --kernel "$kernel" --out build/results.json --log build/console.log "$@" || status=$?
# The run's page (plots, identity, problems); the script still exits with run's code.
if [[ -s build/results.json ]]; then
  build/host/initbench report build/results.json -o build/report.html || true
fi
exit "$status"
