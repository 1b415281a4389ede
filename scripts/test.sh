#!/usr/bin/env bash
# README's test command: installs the packages, builds everything (host CLI, both images),
# fetches Debian's kernel into the cache, builds the two minimal kernels unless they are
# cached (INITBENCH_BUILD_KERNELS=0 skips them, and their tests skip), and runs every ctest
# test (unit and boot).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
INITBENCH_TEST_KERNEL=$(scripts/fetch-debs.sh kernel amd64)
export INITBENCH_TEST_KERNEL
if [[ ${INITBENCH_BUILD_KERNELS:-1} != 0 ]]; then
    for variant in tiny tiny-nobtf; do
        scripts/build-kernel.sh "$variant" >/dev/null
    done
fi
ctest --preset default "$@"
