#!/usr/bin/env bash
# Installs the Debian 12 packages that build, boot and test initbench: `demo` only what
# scripts/demo.sh needs (the CLI, the x86_64 image, a boot), `all` (the default) also what
# the tests need.
# Target sysroots (arm64) and kernels are not installed here: they are unpacked from
# downloaded .deb files by scripts/fetch-debs.sh into a cache.
set -euo pipefail

# What the demo needs: build the host CLI and the x86_64 image, boot it.
demo_packages=(
  # host build
  cmake ninja-build g++ pkg-config git
  clang-14 lld-14 llvm-14
  nlohmann-json3-dev libcli11-dev libboost-math-dev libyaml-dev
  # the kernel payload decompressors of PVH boot (zlib1g-dev and libzstd-dev are below)
  libbz2-dev liblzma-dev liblzo2-dev liblz4-dev
  # init for x86_64: musl + libc++ + Debian's static libbpf and its dependencies
  musl-dev libc++-14-dev libc++abi-14-dev libunwind-14-dev
  libbpf-dev libelf-dev zlib1g-dev libzstd-dev linux-libc-dev libgcc-12-dev
  # probes
  bpftool
  # image and boot
  busybox-static cpio qemu-system-x86 dpkg-dev
  python3 libssl-dev libarchive-dev libzopfli-dev procps
  # initbench report draws its plots with gnuplot (the demo writes a report)
  gnuplot-nox
)
# What the tests need besides.
test_packages=(
  libgtest-dev libgmock-dev
  # the compressors the PVH tests make kernel payloads with
  bzip2 lzop lz4 zstd xz-utils
  # the aarch64 image boots under this
  qemu-system-arm
  # run --boot ipxe|uefi|u-boot: the firmware a board boots through (SeaBIOS, iPXE's NIC
  # ROMs, OVMF, U-Boot for QEMU's virt), and mkimage to check the U-Boot script initbench writes
  seabios ipxe-qemu ovmf u-boot-qemu u-boot-tools
  # results documents are validated against docs/schema/
  python3-jsonschema
  # the tests' and scripts' Python is checked for undefined and unused names (lint.python)
  python3-pyflakes
  # the report test loads the page in a headless browser
  chromium
  # the minimal test kernels (scripts/build-kernel.sh): Debian's source and its build tools
  linux-source-6.1 make gcc bc bison flex dwarves
  # LAVA's dispatcher runs the generated jobs in the lab tests (lava-run, no server)
  lava-dispatcher python3-jinja2
  # a real Debian program with many shared libraries, packed with pack --program (boot test)
  stress-ng
  # tbench, tbench_srv and client.txt: an external load with a setup (boot test)
  dbench
  # kmod's insmod, packed: the page_frag seed's exact form (boot test)
  kmod
)

case ${1:-all} in
  demo) packages=("${demo_packages[@]}") ;;
  all) packages=("${demo_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: $0 [demo|all]" >&2; exit 2 ;;
esac

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
