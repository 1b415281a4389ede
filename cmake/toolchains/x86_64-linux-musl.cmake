# Static musl C++20 for x86_64 from the host's own Debian packages (scripts/install-deps.sh).
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(INITBENCH_TRIPLE x86_64-linux-musl)
set(INITBENCH_GNU_TRIPLE x86_64-linux-gnu)
set(INITBENCH_SYSROOT "" CACHE PATH "Root of the target's unpacked packages (empty: this host)")
set(INITBENCH_EXTRA_RUNTIME "")
include(${CMAKE_CURRENT_LIST_DIR}/musl-clang.cmake)
