#!/usr/bin/env bash
# Downloads Debian packages with `apt-get download` (never installs them) into a cache and
# unpacks them with `dpkg -x`. Each unpacked package leaves a stamp keyed on its exact
# version, so a second run only asks apt-cache for the candidate versions.
#
# Usage:
#   fetch-debs.sh kernel  [amd64|cloud-amd64|rt-amd64|arm64]  -> path of boot/vmlinuz-*
#   fetch-debs.sh headers [amd64|cloud-amd64|rt-amd64|arm64]  -> path of the kbuild dir
#   fetch-debs.sh sysroot aarch64                             -> path of the sysroot
#
# The one result line goes to stdout; all progress goes to stderr.
# Cache: ${INITBENCH_CACHE:-$HOME/.cache/initbench}
set -euo pipefail

readonly CACHE="${INITBENCH_CACHE:-$HOME/.cache/initbench}"
readonly DEBS="$CACHE/debs"
HOST_ARCH=$(dpkg --print-architecture)
readonly HOST_ARCH
export LC_ALL=C

readonly SYSROOT_PACKAGES=(
  musl-dev musl libbpf-dev libelf-dev zlib1g-dev libzstd-dev
  libc++-14-dev libc++abi-14-dev libunwind-14-dev libgcc-12-dev
  linux-libc-dev busybox-static
)

# Files the aarch64 sysroot must have after unpacking (relative to it).
readonly SYSROOT_FILES=(
  usr/lib/aarch64-linux-musl/libc.a
  usr/lib/aarch64-linux-musl/crt1.o
  usr/lib/aarch64-linux-musl/crti.o
  usr/lib/aarch64-linux-musl/crtn.o
  usr/include/aarch64-linux-musl/stdio.h
  usr/lib/aarch64-linux-gnu/libbpf.a
  usr/lib/aarch64-linux-gnu/libelf.a
  usr/lib/aarch64-linux-gnu/libz.a
  usr/lib/aarch64-linux-gnu/libzstd.a
  usr/lib/llvm-14/lib/libc++.a
  usr/lib/llvm-14/lib/libc++abi.a
  usr/lib/llvm-14/lib/libunwind.a
  usr/lib/llvm-14/include/c++/v1/string
  usr/lib/gcc/aarch64-linux-gnu/12/crtbeginT.o
  usr/lib/gcc/aarch64-linux-gnu/12/crtend.o
  usr/lib/gcc/aarch64-linux-gnu/12/libgcc.a
  usr/lib/gcc/aarch64-linux-gnu/12/libgcc_eh.a
  usr/include/aarch64-linux-gnu/asm/unistd.h
  usr/include/linux/bpf.h
  usr/include/asm-generic/int-ll64.h
  usr/include/bpf/libbpf.h
  bin/busybox
)

log() { printf 'fetch-debs: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  sed -n '/^# Usage:/,/^# Cache:/s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

apt_update() {
  log "apt-get update"
  as_root apt-get update -qq -o DPkg::Lock::Timeout=300 >&2
}

# Makes packages of architecture $1 visible to apt: adds the architecture (once per
# machine) and reads the package lists if apt has none for it yet.
ensure_arch() {
  local arch=$1
  if [[ $arch != "$HOST_ARCH" ]] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    log "adding foreign architecture $arch"
    as_root dpkg --add-architecture "$arch"
  fi
  [[ -n $(candidate_of "libc6:$arch") ]] || apt_update
}

# apt-cache with a binary cache of its own: this machine's apt has none (Docker images
# turn it off), and building it costs a second on every call.
apt_cache() {
  mkdir -p "$CACHE/apt"
  apt-cache -o Dir::Cache::pkgcache="$CACHE/apt/pkgcache.bin" "$@"
}

# Prints the candidate version of package "name:arch" $1, or nothing.
candidate_of() {
  apt_cache policy "$1" 2>/dev/null |
    awk '$1 == "Candidate:" && $2 != "(none)" && !v { v = $2 } END { if (v) print v }'
}

# Prints "name:arch version" for the candidate of "name:arch" $1. A package of
# architecture all is "name:all" (apt files it under the native architecture only).
resolve() {
  local spec=$1 ver all
  ver=$(candidate_of "$spec")
  if [[ -z $ver ]]; then
    spec="${1%:*}:all"
    all=$(apt_cache show --no-all-versions "$spec" 2>/dev/null | sed -n 's/^Architecture: //p')
    [[ $all == all ]] && ver=$(candidate_of "$spec")
  fi
  [[ -n $ver ]] || die "no candidate for $1 (is apt-get update needed?)"
  echo "$spec $ver"
}

# Prints the names of the Depends (alternatives included) of "name:arch=version" $1.
depends_of() {
  local out
  out=$(apt_cache depends --no-pre-depends --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "$1" 2>/dev/null) || die "apt-cache knows no $1"
  sed -n 's/^ *|\{0,1\}Depends: <\{0,1\}\([^:> ]*\).*/\1/p' <<<"$out"
}

# Where the cache keeps the .deb of "name:arch" $1 at version $2.
deb_of() { echo "$DEBS/${1//:/_}_${2//:/%3a}.deb"; }
stamp_of() { echo "$1/.stamps/${2//:/_}_${3//:/%3a}"; }

# Downloads the "name:arch version" arguments that $DEBS lacks, all in one apt-get call
# (each call costs a second here: apt reads its compressed package lists).
download_debs() {
  local entry pkg ver tmp got
  local -a specs=()
  for entry in "$@"; do
    read -r pkg ver <<<"$entry"
    [[ -s $(deb_of "$pkg" "$ver") ]] || specs+=("$pkg=$ver")
  done
  ((${#specs[@]})) || return 0
  mkdir -p "$DEBS"
  tmp=$(mktemp -d "$DEBS/.dl.XXXXXX")
  log "downloading ${specs[*]}"
  if ! (cd "$tmp" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "${specs[@]}" >&2); then
    rm -rf "$tmp"
    die "apt-get download failed"
  fi
  for entry in "${specs[@]}"; do
    pkg=${entry%%=*} ver=${entry#*=}
    # apt names it name_version_arch.deb, the epoch's colon as %3a.
    got=("$tmp/${pkg%:*}_${ver//:/%3a}_"*.deb)
    [[ -f ${got[0]} ]] || { rm -rf "$tmp"; die "apt-get download gave no .deb for $entry"; }
    mv "${got[0]}" "$(deb_of "$pkg" "$ver")"
  done
  rm -rf "$tmp"
}

# Wipes the tree $1 if it holds a package that is not among the stamps $2..., so that no
# file of an older version survives.
wipe_stale() {
  local dest=$1 stamp
  local -A keep=()
  shift
  for stamp in "$@"; do keep[$stamp]=1; done
  [[ -d $dest/.stamps ]] || return 0
  for stamp in "$dest"/.stamps/*; do
    [[ -e $stamp && -z ${keep[$stamp]:-} ]] || continue
    log "$dest holds $(basename "$stamp"), which is not wanted: starting it anew"
    rm -rf "$dest"
    return 0
  done
}

# Unpacks every "name:arch version" line of stdin into $1, skipping the packages whose
# stamp is there.
unpack_set() {
  local dest=$1 entry pkg ver
  local -a all=() stamps=() missing=()
  mapfile -t all
  for entry in "${all[@]}"; do
    read -r pkg ver <<<"$entry"
    stamps+=("$(stamp_of "$dest" "$pkg" "$ver")")
  done
  wipe_stale "$dest" "${stamps[@]}"
  for entry in "${all[@]}"; do
    read -r pkg ver <<<"$entry"
    [[ -e $(stamp_of "$dest" "$pkg" "$ver") ]] || missing+=("$entry")
  done
  ((${#missing[@]})) || return 0
  download_debs "${missing[@]}"
  mkdir -p "$dest/.stamps"
  for entry in "${missing[@]}"; do
    read -r pkg ver <<<"$entry"
    log "unpacking $pkg $ver into $dest"
    dpkg -x "$(deb_of "$pkg" "$ver")" "$dest"
    touch "$(stamp_of "$dest" "$pkg" "$ver")"
  done
}

# Prints the Debian architecture of a kernel flavour.
flavour_arch() {
  case $1 in
    amd64 | cloud-amd64 | rt-amd64) echo amd64 ;;
    arm64) echo arm64 ;;
    *) die "unknown flavour '$1' (amd64, cloud-amd64, rt-amd64, arm64)" ;;
  esac
}

# Resolves the meta package "name:arch" $1 to the first package of its Depends that
# matches the glob $2, printing "name:arch version".
resolve_meta() {
  local found meta ver deps d
  found=$(resolve "$1")
  read -r meta ver <<<"$found"
  deps=$(depends_of "$meta=$ver")
  for d in $deps; do
    # shellcheck disable=SC2254
    case $d in $2)
      resolve "$d:${1##*:}"
      return 0
      ;;
    esac
  done
  die "$meta=$ver has no dependency matching $2"
}

cmd_kernel() {
  local flavour=${1:-amd64} arch found spec ver name dir image
  arch=$(flavour_arch "$flavour")
  ensure_arch "$arch"
  found=$(resolve_meta "linux-image-$flavour:$arch" 'linux-image-[0-9]*')
  read -r spec ver <<<"$found"
  name=${spec%:*}
  log "kernel $flavour: $name $ver"
  dir="$CACHE/kernels/${name}_$ver"
  unpack_set "$dir" <<<"$spec $ver"
  echo "$name $ver" >"$dir/PACKAGE"
  image=$(find "$dir/boot" -maxdepth 1 -name 'vmlinuz-*' | head -n1)
  [[ -n $image ]] || die "no boot/vmlinuz-* in $name $ver"
  echo "$image" >&3
}

# Prints "name:arch version" for the headers package "name:arch" $1 at version $2 and
# for the packages of its Depends that the kbuild tree needs.
headers_set() {
  local deps dep
  echo "$1 $2"
  deps=$(depends_of "$1=$2")
  for dep in $deps; do
    case $dep in
      # kbuild holds host tools (fixdep, modpost): those of the build machine.
      linux-kbuild-*) resolve "$dep:$HOST_ARCH" ;;
      linux-headers-*) resolve "$dep:${1##*:}" ;;
    esac
  done
}

# The headers are those of the kernel package that `kernel` unpacks, at its exact version:
# the linux-headers-<flavour> meta package can point at another ABI than linux-image-<flavour>
# (the signed images and the headers migrate separately), and a module built against other
# headers does not load.
cmd_headers() {
  local flavour=${1:-amd64} arch found spec ver name set dir build
  arch=$(flavour_arch "$flavour")
  ensure_arch "$arch"
  found=$(resolve_meta "linux-image-$flavour:$arch" 'linux-image-[0-9]*')
  read -r spec ver <<<"$found"
  name=${spec%:*}
  name=${name%-unsigned}
  name=linux-headers-${name#linux-image-}
  spec="$name:$arch"
  apt_cache show "$spec=$ver" >/dev/null 2>&1 ||
    die "no $spec at version $ver, the version of the kernel package $found"
  log "headers $flavour: $name $ver"
  set=$(headers_set "$spec" "$ver")
  dir="$CACHE/headers/${name}_$ver"
  unpack_set "$dir" <<<"$set"
  echo "$name $ver" >"$dir/PACKAGE"
  build="$dir/usr/src/$name"
  [[ -f $build/Makefile ]] || die "no kbuild dir $build"
  echo "$build" >&3
}

# Prints "name:arch version" for every sysroot package.
sysroot_set() {
  local pkg
  for pkg in "${SYSROOT_PACKAGES[@]}"; do
    resolve "$pkg:arm64"
  done
}

# Fails unless $1 is an ELF for aarch64 without a program interpreter (when file(1) is
# there to tell).
check_static_aarch64() {
  command -v file >/dev/null || return 0
  file -b "$1" | grep -q 'ARM aarch64.*statically linked' ||
    die "$1 is not a static aarch64 binary: $(file -b "$1")"
}

check_sysroot() {
  local dir=$1 f missing=()
  for f in "${SYSROOT_FILES[@]}"; do
    [[ -e $dir/$f ]] || missing+=("$f")
  done
  ((${#missing[@]} == 0)) || die "sysroot $dir lacks: ${missing[*]}"
  check_static_aarch64 "$dir/bin/busybox"
}

cmd_sysroot() {
  local target=${1:-} dir versions
  [[ $target == aarch64 ]] || die "sysroot: only 'aarch64' is known"
  ensure_arch arm64
  versions=$(sysroot_set)
  dir="$CACHE/sysroot-aarch64"
  unpack_set "$dir" <<<"$versions"
  check_sysroot "$dir"
  echo "$dir" >&3
}

main() {
  local cmd=${1:-}
  case $cmd in
    kernel | headers | sysroot) shift ;;
    *) usage ;;
  esac
  # stdout is kept for the result line only.
  exec 3>&1 1>&2
  # One run at a time per cache: parallel runs would unpack into the same trees.
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9
  "cmd_$cmd" "$@"
}

main "$@"
