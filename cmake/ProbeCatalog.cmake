# Each probe declares itself in bpf/X_probe.h (X_declaration: its name, keys and record
# description; host-buildable) and defines X_probe (its ProbeSpec: the maker) in bpf/X.cpp.
# The two lists that gather them are written here from the files' names, so that adding a
# probe adds no line to a central file. Their order is the names' (alphabetical): the order
# in which the runner makes, reads and reports the probes.

get_filename_component(INITBENCH_PROBE_DIR "${CMAKE_CURRENT_LIST_DIR}/../bpf" ABSOLUTE)

function(initbench_probe_stems out)
  if(CMAKE_SCRIPT_MODE_FILE)
    file(GLOB headers RELATIVE ${INITBENCH_PROBE_DIR} ${INITBENCH_PROBE_DIR}/*_probe.h)
  else()
    file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${INITBENCH_PROBE_DIR} ${INITBENCH_PROBE_DIR}/*_probe.h)
  endif()
  list(SORT headers)
  list(TRANSFORM headers REPLACE "_probe\\.h$" "")
  set(${out} ${headers} PARENT_SCOPE)
endfunction()

# One line per probe: `pattern` with @X@ replaced by the probe's stem.
function(initbench_probe_lines out pattern)
  initbench_probe_stems(stems)
  set(lines "")
  foreach(stem IN LISTS stems)
    string(REPLACE "@X@" "${stem}" line "${pattern}")
    string(APPEND lines "${line}")
  endforeach()
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# probe_catalog.h, host and guest: probe_catalog::kDecls, every probe's declaration.
function(initbench_write_probe_catalog path)
  initbench_probe_lines(includes "#include \"bpf/@X@_probe.h\"\n")
  initbench_probe_lines(decls "    &@X@_declaration,\n")
  file(CONFIGURE OUTPUT ${path} CONTENT
"// Written by cmake/ProbeCatalog.cmake from bpf/*_probe.h; not edited by hand.
#pragma once

${includes}
namespace initbench::probe_catalog {

inline constexpr const ProbeDecl* kDecls[] = {
${decls}};

} // namespace initbench::probe_catalog
")
endfunction()

# probe_registry.cpp, guest: probe_registry(), every probe's ProbeSpec.
function(initbench_write_probe_registry path)
  initbench_probe_lines(externs "extern const ProbeSpec @X@_probe;\n")
  initbench_probe_lines(specs "        &@X@_probe,\n")
  file(CONFIGURE OUTPUT ${path} CONTENT
"// Written by cmake/ProbeCatalog.cmake from bpf/*_probe.h; not edited by hand.
#include \"bpf/probe.h\"

namespace initbench {

${externs}
const std::vector<const ProbeSpec*>& probe_registry() {
    static const std::vector<const ProbeSpec*> probes = {
${specs}    };
    return probes;
}

} // namespace initbench
")
endfunction()

# As a script, for a build outside CMake (scripts/fuzz.sh):
#   cmake -DCATALOG=DIR/probe_catalog.h -P cmake/ProbeCatalog.cmake
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED CATALOG)
  initbench_write_probe_catalog(${CATALOG})
endif()
