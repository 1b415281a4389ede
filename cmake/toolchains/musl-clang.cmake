# Shared part of the musl toolchains: a static C++20 program built with clang, Debian's
# libc++ and musl's libc.a (Debian has no musl C++ compiler; README, "Building by hand", has the packages).
# The including file sets INITBENCH_TRIPLE (e.g. x86_64-linux-musl), INITBENCH_GNU_TRIPLE
# (where Debian keeps the static archives) and INITBENCH_SYSROOT ("" for the host's own
# files, or a tree unpacked from the target's .deb files).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER clang-14)
set(CMAKE_CXX_COMPILER clang++-14)
set(CMAKE_LINKER ld.lld-14)
set(CMAKE_C_COMPILER_TARGET ${INITBENCH_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${INITBENCH_TRIPLE})

set(_root "${INITBENCH_SYSROOT}")
set(_llvm "${_root}/usr/lib/llvm-14")
set(_musl_lib "${_root}/usr/lib/${INITBENCH_TRIPLE}")
set(_gnu_lib "${_root}/usr/lib/${INITBENCH_GNU_TRIPLE}")
set(_gcc_lib "${_root}/usr/lib/gcc/${INITBENCH_GNU_TRIPLE}/12")
set(_clang_inc "/usr/lib/llvm-14/lib/clang/14.0.6/include") # the compiler's own, host side

# musl's include dir has no kernel, libbpf or JSON headers, and /usr/include as a whole
# would let glibc's headers in: an overlay of symlinks exposes just the ones we need.
set(_overlay "${CMAKE_BINARY_DIR}/musl-overlay-include")
file(MAKE_DIRECTORY "${_overlay}")
foreach(_pair
    "linux=${_root}/usr/include/linux"
    "asm=${_root}/usr/include/${INITBENCH_GNU_TRIPLE}/asm"
    "asm-generic=${_root}/usr/include/asm-generic"
    "bpf=${_root}/usr/include/bpf"
    "nlohmann=/usr/include/nlohmann")
  string(REPLACE "=" ";" _kv "${_pair}")
  list(GET _kv 0 _name)
  list(GET _kv 1 _dest)
  if(NOT EXISTS "${_overlay}/${_name}")
    file(CREATE_LINK "${_dest}" "${_overlay}/${_name}" SYMBOLIC)
  endif()
endforeach()

# Debian's libc++ was configured for glibc: _LIBCPP_HAS_MUSL_LIBC tells its headers otherwise.
set(_c_includes "-nostdinc -isystem ${_clang_inc} -isystem ${_root}/usr/include/${INITBENCH_TRIPLE} \
-isystem ${_overlay}")
set(_includes "-D_LIBCPP_HAS_MUSL_LIBC -nostdinc++ -isystem ${_llvm}/include/c++/v1 ${_c_includes}")
# No build paths in the binary (__FILE__ in asserts): the image must be reproducible.
set(_common "-ffunction-sections -fdata-sections -ffile-prefix-map=${CMAKE_SOURCE_DIR}=.")
set(CMAKE_C_FLAGS_INIT "${_c_includes} ${_common}")
set(CMAKE_CXX_FLAGS_INIT "${_includes} ${_common}")

# Link with lld directly: the crt objects and archives in the order a static musl link needs.
# --eh-frame-hdr is required or exceptions are never caught.
set(INITBENCH_STATIC_LIBS
    "${_gnu_lib}/libbpf.a" "${_gnu_lib}/libelf.a" "${_gnu_lib}/libz.a" "${_gnu_lib}/libzstd.a"
    CACHE INTERNAL "Debian's static archives that libbpf needs")
set(_head "${_musl_lib}/crt1.o ${_musl_lib}/crti.o ${_gcc_lib}/crtbeginT.o")
set(_tail "${_llvm}/lib/libc++.a ${_llvm}/lib/libc++abi.a ${_llvm}/lib/libunwind.a \
${_musl_lib}/libc.a ${_gcc_lib}/libgcc.a ${INITBENCH_EXTRA_RUNTIME} ${_gcc_lib}/crtend.o ${_musl_lib}/crtn.o")
foreach(_lang C CXX)
  set(CMAKE_${_lang}_LINK_EXECUTABLE
      "<CMAKE_LINKER> -static --eh-frame-hdr --gc-sections <LINK_FLAGS> -o <TARGET> ${_head} \
<OBJECTS> <LINK_LIBRARIES> -L${_musl_lib} ${_tail}")
endforeach()

set(CMAKE_FIND_ROOT_PATH "${_root}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES INITBENCH_SYSROOT)
