# Each load and each probe is a folder with a declaration of its own, which host and guest
# both build. A load is payload/X/: its declaration X_load.h (X_declaration: its name and
# keys) and its code, which defines X_load (a LoadSpec). A probe is bpf/X/: its declaration
# X_probe.h (X_declaration: its name, keys and record description) and its code, which
# defines X_probe (a ProbeSpec). The lists that gather them are written here from the
# folders' names, so that adding a load or a probe adds no line to a central file. Their
# order is the names' (alphabetical): the order in which the runner lists loads and makes,
# reads and reports probes. payload/core/ and bpf/core/ are frameworks, not units.

get_filename_component(INITBENCH_CATALOG_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# The units of DIR as "STEM|HEADER" (HEADER relative to the source root): every folder
# DIR/X/ holding X_KIND.h.
function(initbench_catalog_units out dir kind)
  set(from ${INITBENCH_CATALOG_ROOT}/${dir})
  if(CMAKE_SCRIPT_MODE_FILE)
    file(GLOB entries RELATIVE ${from} ${from}/* )
  else()
    file(GLOB entries CONFIGURE_DEPENDS RELATIVE ${from} ${from}/*)
  endif()
  set(units "")
  foreach(entry IN LISTS entries)
    if(IS_DIRECTORY ${from}/${entry} AND EXISTS ${from}/${entry}/${entry}_${kind}.h)
      list(APPEND units "${entry}|${dir}/${entry}/${entry}_${kind}.h")
    endif()
  endforeach()
  list(SORT units)
  set(${out} ${units} PARENT_SCOPE)
endfunction()

# One line per unit: `pattern` with @X@ replaced by its stem and @H@ by its header.
function(initbench_catalog_lines out dir kind pattern)
  initbench_catalog_units(units ${dir} ${kind})
  set(lines "")
  foreach(unit IN LISTS units)
    string(REPLACE "|" ";" parts "${unit}")
    list(GET parts 0 stem)
    list(GET parts 1 header)
    string(REPLACE "@X@" "${stem}" line "${pattern}")
    string(REPLACE "@H@" "${header}" line "${line}")
    string(APPEND lines "${line}")
  endforeach()
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# KIND_catalog.h, host and guest: KIND_catalog::kDecls, every declaration of DIR/*_KIND.h.
function(initbench_write_catalog path dir kind decl_type)
  initbench_catalog_lines(includes ${dir} ${kind} "#include \"@H@\"\n")
  initbench_catalog_lines(decls ${dir} ${kind} "    &@X@_declaration,\n")
  file(CONFIGURE OUTPUT ${path} CONTENT
"// Written by cmake/Catalog.cmake from the ${kind}s of ${dir}/; not edited by hand.
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
"// Written by cmake/Catalog.cmake from the ${kind}s of ${dir}/; not edited by hand.
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
