#!/usr/bin/env bash
# Builds the libFuzzer targets in tests/fuzz (clang, ASan + UBSan) and runs each for
# SECONDS (default 20) on a copy of its seed corpus; prints the figures. A crash fails the
# run and leaves the reproducer in the work dir: turn it into a unit test.
#   scripts/fuzz.sh [SECONDS] [WORKDIR]
# FUZZ_BIN_DIR: run the targets the build made there (cmake's `fuzzers`) instead.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-20}
work=${2:-$(mktemp -d /tmp/initbench-fuzz.XXXXXX)}
mkdir -p "$work"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$here" -I"$work")
# common/ gathers every load's and probe's declaration through generated headers.
[[ -n ${FUZZ_BIN_DIR:-} ]] || cmake -DCATALOG_DIR="$work" -P "$here/cmake/Catalog.cmake"
# The results reader and the console log parser are host code, each fuzzed on its own; the
# parser reads LAVA's lines with libyaml.
for target in config log results; do
    bin=$work/fuzz_$target
    extra=()
    [[ $target == results ]] && extra=("$here/host/compare/compare_read.cpp")
    [[ $target == log ]] && extra=("$here/host/results/logparse.cpp" "$here/host/results/lava_log.cpp" -lyaml)
    if [[ -n ${FUZZ_BIN_DIR:-} ]]; then
        bin=$FUZZ_BIN_DIR/fuzz_$target
    else
        clang++-14 "${flags[@]}" "$here/tests/fuzz/fuzz_$target.cpp" "$here"/common/*.cpp "${extra[@]}" -o "$bin"
    fi
    corpus=$work/corpus_$target
    mkdir -p "$corpus"
    cp -n "$here/tests/fuzz/corpus/$target"/* "$corpus/" 2>/dev/null || true
    log=$work/fuzz_$target.log
    if ! (cd "$work" && "$bin" -max_total_time="$seconds" -max_len=1048576 -rss_limit_mb=4096 \
            -print_final_stats=1 "$corpus" > "$log" 2>&1); then
        tail -40 "$log"
        echo "fuzz_$target: FAILED — reproducer in $work" >&2
        exit 1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz_$target: $runs inputs in ${seconds}s, no crash (corpus $(ls "$corpus" | wc -l) files)"
done
