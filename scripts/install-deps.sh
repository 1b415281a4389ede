#!/usr/bin/env bash
# Installs the Debian 12 packages that build, boot and test initbench.
# Target sysroots (arm64) and kernels are not installed here: they are unpacked from
# downloaded .deb files by scripts/fetch-debs.sh into a cache.
set -euo pipefail

packages=(
  # host build
  cmake ninja-build g++ pkg-config git
  clang-14 lld-14 llvm-14
  nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libboost-math-dev
  # the kernel payload decompressors of PVH boot (zlib1g-dev and libzstd-dev are below),
  # and the compressors its tests make payloads with
  libbz2-dev liblzma-dev liblzo2-dev liblz4-dev
  bzip2 lzop lz4 zstd xz-utils
  # init for x86_64: musl + libc++ + Debian's static libbpf and its dependencies
  musl-dev libc++-14-dev libc++abi-14-dev libunwind-14-dev
  libbpf-dev libelf-dev zlib1g-dev libzstd-dev linux-libc-dev libgcc-12-dev
  # probes
  bpftool
  # image and boot
  busybox-static cpio qemu-system-x86 qemu-system-arm dpkg-dev
  python3 libssl-dev libarchive-dev procps
  # the minimal test kernels (scripts/build-kernel.sh): Debian's source and its build tools
  linux-source-6.1 make gcc bc bison flex dwarves xz-utils
  # LAVA's dispatcher runs the generated jobs in the lab tests (lava-run, no server)
  lava-dispatcher python3-jinja2
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
