#!/usr/bin/env bash
# Builds a minimal x86_64 kernel from Debian's linux-source-6.1: `make tinyconfig`, then
# kconfig/tiny-x86_64.config and kconfig/initbench.config merged the way the kernel's
# scripts/kconfig/merge_config.sh does, no modules. Prints the bzImage's path.
#   build-kernel.sh tiny          with BTF (every probe can work)
#   build-kernel.sh tiny-nobtf    without BTF (BTF-dependent features must degrade)
#   build-kernel.sh --cached VARIANT   print the path only if it is built (else exit 3)
# Cached under $INITBENCH_CACHE/kernels/VARIANT-HASH, keyed on the source package version
# and the fragments, so CI rebuilds only when they change.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${INITBENCH_CACHE:-$HOME/.cache/initbench}
cached_only=0
if [[ ${1:-} == --cached ]]; then
    cached_only=1
    shift
fi
variant=${1:?usage: build-kernel.sh [--cached] tiny|tiny-nobtf}
case $variant in tiny|tiny-nobtf) ;; *) echo "unknown variant $variant" >&2; exit 2;; esac

src_tar=/usr/src/linux-source-6.1.tar.xz
[[ -f $src_tar ]] || { echo "build-kernel: install linux-source-6.1 first" >&2; exit 1; }
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { echo "$version $variant"; cat "$here/kconfig/initbench.config" "$here/kconfig/tiny-x86_64.config"; } | sha256sum | cut -c1-12)
out=$cache/kernels/$variant-$key
if [[ -f $out/bzImage ]]; then
    echo "$out/bzImage"
    exit 0
fi
[[ $cached_only == 0 ]] || exit 3

work=$cache/kernel-build/linux-source-6.1
if [[ ! -f $work/Makefile ]]; then
    echo "build-kernel: unpacking $src_tar" >&2
    mkdir -p "$cache/kernel-build"
    tar -xJf "$src_tar" -C "$cache/kernel-build"
fi
build=$cache/kernel-build/out-$variant
mkdir -p "$build"
make -C "$work" O="$build" ARCH=x86_64 tinyconfig >&2
# merge_config.sh -m: later fragments override earlier values; olddefconfig resolves the rest.
frags=("$here/kconfig/tiny-x86_64.config" "$here/kconfig/initbench.config")
if [[ $variant == tiny-nobtf ]]; then
    printf 'CONFIG_DEBUG_INFO_BTF=n\nCONFIG_DEBUG_INFO_NONE=y\nCONFIG_DEBUG_INFO=n\nCONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=n\n' > "$build/nobtf.config"
    frags+=("$build/nobtf.config")
fi
(cd "$build" && "$work/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${frags[@]}" >&2)
make -C "$work" O="$build" ARCH=x86_64 olddefconfig >&2
make -C "$work" O="$build" ARCH=x86_64 -j"$(nproc)" bzImage >&2
mkdir -p "$out"
cp "$build/arch/x86/boot/bzImage" "$out/bzImage"
cp "$build/.config" "$out/config"
echo "$out/bzImage"
