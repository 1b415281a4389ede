# Static musl C++20 for aarch64 from Debian's arm64 packages, unpacked (never installed) by
# `scripts/fetch-debs.sh sysroot aarch64`.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(INITBENCH_TRIPLE aarch64-linux-musl)
set(INITBENCH_GNU_TRIPLE aarch64-linux-gnu)
set(INITBENCH_SYSROOT "$ENV{HOME}/.cache/initbench/sysroot-aarch64" CACHE PATH
    "Root of the target's unpacked packages (scripts/fetch-debs.sh sysroot aarch64)")
# libgcc_eh provides the unwinder pieces libgcc leaves out on arm64.
set(INITBENCH_EXTRA_RUNTIME "${INITBENCH_SYSROOT}/usr/lib/gcc/aarch64-linux-gnu/12/libgcc_eh.a")
include(${CMAKE_CURRENT_LIST_DIR}/musl-clang.cmake)
