# Guest side: a static musl PID 1 with its probes and loads (CMAKE_TOOLCHAIN_FILE is one of
# cmake/toolchains/*.cmake). Included from the top-level CMakeLists.txt.
include(BpfObject)

# Header-only JSON reaches the guest through the toolchain's include overlay.
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)

# -Oz: the image has a size budget (images/CMakeLists.txt); the loads keep -Os (payload/).
add_compile_options(-Wall -Wextra -Oz)
add_subdirectory(common)
add_subdirectory(sys)
add_subdirectory(bpf)
add_subdirectory(payload)
add_subdirectory(init)
