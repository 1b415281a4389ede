#!/usr/bin/env bash
# README's test command: installs the packages, builds everything (host CLI, both images),
# fetches Debian's kernel into the cache, and runs every ctest test (unit and boot).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
INITBENCH_TEST_KERNEL=$(scripts/fetch-debs.sh kernel amd64)
export INITBENCH_TEST_KERNEL
ctest --preset default "$@"
