# Each load and each probe declares itself in a header of its own, which host and guest
# both build: payload/X_load.h (X_declaration: its name and keys) and bpf/X_probe.h
# (X_declaration: its name, keys and record description). Its code defines X_load (a
# LoadSpec, in payload/X.cpp) or X_probe (a ProbeSpec, in bpf/X.cpp). The lists that gather
# them are written here from the files' names, so that adding a load or a probe adds no
# line to a central file. Their order is the names' (alphabetical): the order in which the
# runner lists loads and makes, reads and reports probes.

get_filename_component(INITBENCH_CATALOG_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# The stems X of DIR/X_KIND.h (KIND: load or probe).
function(initbench_catalog_stems out dir kind)
  set(from ${INITBENCH_CATALOG_ROOT}/${dir})
  if(CMAKE_SCRIPT_MODE_FILE)
    file(GLOB headers RELATIVE ${from} ${from}/*_${kind}.h)
  else()
    file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${from} ${from}/*_${kind}.h)
  endif()
  list(SORT headers)
  list(TRANSFORM headers REPLACE "_${kind}\\.h$" "")
  set(${out} ${headers} PARENT_SCOPE)
endfunction()

# One line per stem: `pattern` with @X@ replaced by it.
function(initbench_catalog_lines out dir kind pattern)
  initbench_catalog_stems(stems ${dir} ${kind})
  set(lines "")
  foreach(stem IN LISTS stems)
    string(REPLACE "@X@" "${stem}" line "${pattern}")
    string(APPEND lines "${line}")
  endforeach()
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# KIND_catalog.h, host and guest: KIND_catalog::kDecls, every declaration of DIR/*_KIND.h.
function(initbench_write_catalog path dir kind decl_type)
  initbench_catalog_lines(includes ${dir} ${kind} "#include \"${dir}/@X@_${kind}.h\"\n")
  initbench_catalog_lines(decls ${dir} ${kind} "    &@X@_declaration,\n")
  file(CONFIGURE OUTPUT ${path} CONTENT
"// Written by cmake/Catalog.cmake from ${dir}/*_${kind}.h; not edited by hand.
#pragma once

${includes}
namespace initbench::${kind}_catalog {

inline constexpr const ${decl_type}* kDecls[] = {
${decls}};

} // namespace initbench::${kind}_catalog
")
endfunction()

# A guest (and loadbench) source defining FUNCTION(): every X_KIND of DIR/*_KIND.h, a SPEC.
function(initbench_write_registry path dir kind spec_type function header)
  initbench_catalog_lines(externs ${dir} ${kind} "extern const ${spec_type} @X@_${kind};\n")
  initbench_catalog_lines(specs ${dir} ${kind} "        &@X@_${kind},\n")
  file(CONFIGURE OUTPUT ${path} CONTENT
"// Written by cmake/Catalog.cmake from ${dir}/*_${kind}.h; not edited by hand.
#include \"${header}\"

namespace initbench {

${externs}
const std::vector<const ${spec_type}*>& ${function}() {
    static const std::vector<const ${spec_type}*> all = {
${specs}    };
    return all;
}

} // namespace initbench
")
endfunction()

# As a script, for a build outside CMake (scripts/fuzz.sh): both catalogs into DIR.
#   cmake -DCATALOG_DIR=DIR -P cmake/Catalog.cmake
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED CATALOG_DIR)
  initbench_write_catalog(${CATALOG_DIR}/load_catalog.h payload load LoadDecl)
  initbench_write_catalog(${CATALOG_DIR}/probe_catalog.h bpf probe ProbeDecl)
endif()
