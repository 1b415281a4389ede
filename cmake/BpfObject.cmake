# initbench_bpf_object(STEM SRC): SRC (bpf/X/STEM.bpf.c) → STEM.bpf.o → STEM.skel.h
# (bpftool), exposed as the INTERFACE target bpf_STEM whose include dir holds the skeleton.
find_program(BPFTOOL bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)
find_program(BPF_CLANG clang-14 REQUIRED)
find_program(BPF_STRIP llvm-strip-14 REQUIRED)

# __TARGET_ARCH_* selects bpf_tracing.h's pt_regs layout for kprobes.
if(CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
  set(BPF_TARGET_ARCH arm64)
else()
  set(BPF_TARGET_ARCH x86)
endif()

function(initbench_bpf_object stem src)
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/${stem}.bpf.o)
  set(skel ${CMAKE_CURRENT_BINARY_DIR}/${stem}.skel.h)
  # The musl overlay has the uapi and libbpf headers without glibc's.
  add_custom_command(
    OUTPUT ${obj}
    # BTF line info names source files: map the paths so the image does not depend on them.
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${BPF_TARGET_ARCH}
            -ffile-prefix-map=${CMAKE_SOURCE_DIR}=. -ffile-prefix-map=${CMAKE_BINARY_DIR}=build
            -I${CMAKE_BINARY_DIR}/musl-overlay-include -I${CMAKE_SOURCE_DIR}
            -MD -MF ${obj}.d -c ${src} -o ${obj}
    # -g gives the compiler what it makes BTF from; libbpf reads the BTF (.BTF, .BTF.ext) and
    # never the DWARF, which would be half of each object the init embeds.
    COMMAND ${BPF_STRIP} -g ${obj}
    DEPENDS ${src}
    DEPFILE ${obj}.d
    COMMENT "BPF ${stem}.bpf.c"
    VERBATIM)
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${stem}_bpf > ${skel}
    DEPENDS ${obj}
    COMMENT "BPF skeleton ${stem}.skel.h"
    VERBATIM)
  add_custom_target(bpf_${stem}_gen DEPENDS ${skel})
  add_library(bpf_${stem} INTERFACE)
  target_include_directories(bpf_${stem} INTERFACE ${CMAKE_CURRENT_BINARY_DIR})
  add_dependencies(bpf_${stem} bpf_${stem}_gen)
endfunction()
