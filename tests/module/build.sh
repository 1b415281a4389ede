#!/usr/bin/env bash
# Builds a test module (tests/module/MODULE.c; initbench_test by default) against Debian's
# linux-headers for a kernel flavour (the same package version as `fetch-debs.sh kernel
# FLAVOUR` boots), in OUT_DIR.
# Usage: build.sh OUT_DIR [amd64|cloud-amd64|rt-amd64] [MODULE]   -> prints the path of the .ko
set -euo pipefail

out=${1:?usage: build.sh OUT_DIR [FLAVOUR]}
flavour=${2:-amd64}
module=${3:-initbench_test}
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
cp "$here/$module.c" "$out/"
echo "obj-m := $module.o" >"$out/Kbuild"
make -s -C "$headers" -f "$headers/../$common/Makefile" M="$(cd "$out" && pwd)" modules >&2
echo "$(cd "$out" && pwd)/$module.ko"
