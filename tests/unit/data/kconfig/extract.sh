#!/usr/bin/env bash
# Saves the lines of real kernel configs that kconfig/features.tsv asks about, so that
# tests/unit/kconfig_test.cpp checks `initbench kconfig check` against real kernels
# without downloading them. Run it again when the table names new options:
#   tests/unit/data/kconfig/extract.sh                       # all kernels below, from the cache
#   tests/unit/data/kconfig/extract.sh tiny-nobtf=PATH/.config  # a tiny variant's config from
#       a build directory that scripts/build-kernel.sh's steps configured (make tinyconfig,
#       merge_config.sh, olddefconfig) but did not build yet
# Debian's configs come from the unpacked linux-image packages (scripts/fetch-debs.sh
# kernel FLAVOUR); the tiny ones from scripts/build-kernel.sh's cache (VARIANT-HASH/config).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../../.." && pwd)
cache=${INITBENCH_CACHE:-$HOME/.cache/initbench}

# The options the table names, and the arch symbols its -x86_64/-arm64 rows look at.
options=$( { grep -v '^#' "$src/kconfig/features.tsv" | cut -f2 | tr ' ' '\n'; echo X86_64; echo ARM64; } | sort -u)

# extract NAME CONFIG ORIGIN: every table option's line, "# ... is not set" when the config
# says so, and "# CONFIG_X absent" when the config does not mention it at all.
extract() {
    local name=$1 config=$2 origin=$3 out=$here/$1.config
    {
        echo "# $origin"
        echo "# Extracted by tests/unit/data/kconfig/extract.sh: only the options kconfig/features.tsv names."
        for o in $options; do
            grep -E "^(CONFIG_$o=|# CONFIG_$o is not set)" "$config" || echo "# CONFIG_$o absent"
        done
    } > "$out"
    echo "$out" >&2
}

for flavour in amd64 cloud-amd64 rt-amd64 arm64; do
    vmlinuz=$("$src/scripts/fetch-debs.sh" kernel "$flavour")
    dir=$(dirname "$vmlinuz")
    pkg=$(basename "$(dirname "$dir")") # linux-image-RELEASE_VERSION
    extract "debian-$flavour" "$dir/config-${vmlinuz##*/vmlinuz-}" "Debian $pkg (boot/config-${vmlinuz##*/vmlinuz-})"
done
declare -A given=()
for arg in "$@"; do given[${arg%%=*}]=${arg#*=}; done
source_version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
for variant in tiny tiny-nobtf; do
    if [[ -n ${given[$variant]:-} ]]; then
        extract "$variant" "${given[$variant]}" \
            "scripts/build-kernel.sh $variant's configuration steps on linux-source-6.1 $source_version (configured, not built)"
        continue
    fi
    bz=$("$src/scripts/build-kernel.sh" --cached "$variant") || { echo "$variant not built: skipped" >&2; continue; }
    extract "$variant" "$(dirname "$bz")/config" \
        "scripts/build-kernel.sh $variant from linux-source-6.1 $source_version ($(basename "$(dirname "$bz")"))"
done
