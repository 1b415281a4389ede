# Guest side: a static musl PID 1 with its probes and loads (CMAKE_TOOLCHAIN_FILE is one of
# cmake/toolchains/*.cmake). Included from the top-level CMakeLists.txt.
include(BpfObject)

# Header-only JSON reaches the guest through the toolchain's include overlay.
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)

add_compile_options(-Wall -Wextra -Os)
add_subdirectory(common)
# System call wrappers (errors as values, RAII fds) used by init, probes and loads alike.
add_library(initbench_sys STATIC init/sys.cpp)
target_include_directories(initbench_sys PUBLIC ${CMAKE_SOURCE_DIR})
add_subdirectory(bpf)
add_subdirectory(payload)
add_subdirectory(init)
