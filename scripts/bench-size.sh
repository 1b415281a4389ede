#!/usr/bin/env bash
# What the guest weighs, revision against revision: each REV is built in a worktree of its
# own, as the demo builds it (Release, x86_64, no tests), and its stripped init and its
# initramfs (cpio.gz) are measured. The last column is each size against the first REV's.
#
#   scripts/bench-size.sh [REV ...]     default: HEAD
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
revs=("$@")
[[ ${#revs[@]} -gt 0 ]] || revs=(HEAD)
tmp=$(mktemp -d /tmp/initbench-size.XXXXXX)
cleanup() {
    for dir in "$tmp"/src-*; do
        [[ -d $dir ]] && git -C "$here" worktree remove --force "$dir" >/dev/null 2>&1
    done
    rm -rf "$tmp"
}
trap cleanup EXIT

printf '%-12s %12s %14s %8s %8s\n' rev init_bytes initramfs_bytes init_x cpio_x
first_init='' first_cpio=''
for rev in "${revs[@]}"; do
    commit=$(git -C "$here" rev-parse --short "$rev")
    src=$tmp/src-$commit
    git -C "$here" worktree add --detach "$src" "$commit" >/dev/null 2>&1
    cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINITBENCH_ARCHES=x86_64 \
          -DBUILD_TESTING=OFF -DINITBENCH_LOADBENCH=OFF >"$tmp/$commit.log" 2>&1
    cmake --build "$src/build" >>"$tmp/$commit.log" 2>&1 || { tail -20 "$tmp/$commit.log"; exit 1; }
    init=$(stat -c %s "$src/build/guest-x86_64/init/initbench-init")
    cpio=$(stat -c %s "$src/build/initbench-x86_64.cpio.gz")
    first_init=${first_init:-$init} first_cpio=${first_cpio:-$cpio}
    awk -v r="$commit" -v i="$init" -v c="$cpio" -v fi="$first_init" -v fc="$first_cpio" \
        'BEGIN { printf "%-12s %12d %14d %8.3f %8.3f\n", r, i, c, i / fi, c / fc }'
done
