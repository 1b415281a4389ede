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
exec build/host/initbench run --kernel "$kernel" --out build/results.json --log build/console.log "$@"
