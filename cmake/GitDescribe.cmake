# initbench_git_describe(): ${CMAKE_BINARY_DIR}/generated/initbench_build.h, with
# INITBENCH_BUILD_VERSION (the project's version) and INITBENCH_BUILD_COMMIT (`git describe
# --always --dirty` of the source tree, "unknown" outside git), taken at every build, not at
# configure time: an image built after an edit says "-dirty" even when the tree was clean at
# the last configure. The header is rewritten only when its text changes, so an unchanged
# commit recompiles nothing.
set(INITBENCH_WRITE_BUILD_HEADER ${CMAKE_CURRENT_LIST_DIR}/WriteBuildHeader.cmake)

function(initbench_git_describe)
  find_package(Git QUIET)
  set(header ${CMAKE_BINARY_DIR}/generated/initbench_build.h)
  set(write ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${header}
            -DVERSION=${PROJECT_VERSION} -DGIT_EXECUTABLE=${GIT_EXECUTABLE} -P ${INITBENCH_WRITE_BUILD_HEADER})
  # Once now, so that the header exists before the first build scans its includes.
  execute_process(COMMAND ${write})
  add_custom_target(initbench_build_header COMMAND ${write} BYPRODUCTS ${header}
                    COMMENT "" VERBATIM)
endfunction()
