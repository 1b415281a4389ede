# initbench_guest_build(ARCH): builds this same source tree for the guest with
# cmake/toolchains/ARCH-linux-musl.cmake as an ExternalProject named guest-ARCH.
# Sets INITBENCH_INIT_<ARCH> (the init binary) and INITBENCH_SYSROOT_<ARCH>.
include(ExternalProject)

function(initbench_guest_build arch)
  set(bin ${CMAKE_BINARY_DIR}/guest-${arch})
  set(sysroot "")
  set(deps "")
  if(NOT arch STREQUAL CMAKE_HOST_SYSTEM_PROCESSOR)
    # A foreign architecture's libraries come from its Debian packages, unpacked.
    set(sysroot ${INITBENCH_CACHE}/sysroot-${arch})
    add_custom_command(
      OUTPUT ${bin}-sysroot.stamp
      COMMAND ${CMAKE_SOURCE_DIR}/scripts/fetch-debs.sh sysroot ${arch} > /dev/null
      COMMAND ${CMAKE_COMMAND} -E touch ${bin}-sysroot.stamp
      COMMENT "Unpacking the ${arch} sysroot from Debian packages"
      VERBATIM)
    add_custom_target(sysroot-${arch} DEPENDS ${bin}-sysroot.stamp)
    set(deps DEPENDS sysroot-${arch})
  endif()
  ExternalProject_Add(guest-${arch}
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${bin}
    CMAKE_ARGS
      -DINITBENCH_GUEST=ON
      -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/cmake/toolchains/${arch}-linux-musl.cmake
      -DINITBENCH_SYSROOT=${sysroot}
      -DCMAKE_BUILD_TYPE=MinSizeRel
    CMAKE_GENERATOR ${CMAKE_GENERATOR}
    BUILD_ALWAYS ON
    INSTALL_COMMAND ""
    BUILD_BYPRODUCTS ${bin}/init/initbench-init
    ${deps})
  set(INITBENCH_INIT_${arch} ${bin}/init/initbench-init PARENT_SCOPE)
  set(INITBENCH_SYSROOT_${arch} "${sysroot}" PARENT_SCOPE)
endfunction()
