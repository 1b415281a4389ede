#!/usr/bin/env bash
# Builds tests/module/initbench_test.ko against Debian's linux-headers for a kernel flavour
# (the same package version as `fetch-debs.sh kernel FLAVOUR` boots), in OUT_DIR.
# Usage: build.sh OUT_DIR [amd64|cloud-amd64|rt-amd64]   -> prints the path of the .ko
set -euo pipefail

out=${1:?usage: build.sh OUT_DIR [FLAVOUR]}
flavour=${2:-amd64}
here=$(cd "$(dirname "$0")" && pwd)
headers=$("$here/../../scripts/fetch-debs.sh" headers "$flavour")
# The flavour's Makefile includes /usr/src/linux-headers-*-common/Makefile by its absolute
# path, which exists only when the package is installed: point make at the unpacked one.
common=$(sed -n 's|^include /usr/src/\(linux-headers-.*-common\)/Makefile$|\1|p' "$headers/Makefile")
[[ -n $common && -f $headers/../$common/Makefile ]] || {
  echo "build.sh: no common headers next to $headers" >&2
  exit 1
}
mkdir -p "$out"
cp "$here/initbench_test.c" "$here/Kbuild" "$out/"
make -s -C "$headers" -f "$headers/../$common/Makefile" M="$(cd "$out" && pwd)" modules >&2
echo "$(cd "$out" && pwd)/initbench_test.ko"
