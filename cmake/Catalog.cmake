# Each load and each probe is a folder with a declaration of its own, which host and guest
# both build. A load is payload/X/: its declaration load.json (its operation, help and keys;
# X is its name), from which this file writes the header payload/X/X_load.h
# (X_declaration) into the build, and its code, which defines X_load (a LoadSpec). A probe
# is bpf/X/: its declaration X_probe.h (X_declaration: its name, keys and record
# description) and its code, which defines X_probe (a ProbeSpec). The lists that gather them
# are written here from the folders' names, so that adding a load or a probe adds no line to
# a central file. Their order is the names' (alphabetical): the order in which the runner
# lists loads and makes, reads and reports probes. payload/core/ and bpf/core/ are
# frameworks, not units.

if(CMAKE_SCRIPT_MODE_FILE) # cmake -P: the policies of the project's own minimum (IN_LIST)
  cmake_minimum_required(VERSION 3.25)
endif()
get_filename_component(INITBENCH_CATALOG_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED CATALOG_ROOT) # another tree's units (tests/walkthrough)
  set(INITBENCH_CATALOG_ROOT ${CATALOG_ROOT})
endif()

# What makes DIR/X/ a unit of KIND: the declaration it holds (@X@ for the folder's name).
set(INITBENCH_LOAD_MARKER "load.json")
set(INITBENCH_PROBE_MARKER "@X@_probe.h")

# The units of DIR as "STEM|HEADER" (HEADER relative to the source root, or for a load to the
# generated headers): every folder DIR/X/ holding KIND's marker.
function(initbench_catalog_units out dir kind)
  string(TOUPPER ${kind} upper)
  set(from ${INITBENCH_CATALOG_ROOT}/${dir})
  if(CMAKE_SCRIPT_MODE_FILE)
    file(GLOB entries RELATIVE ${from} ${from}/* )
  else()
    file(GLOB entries CONFIGURE_DEPENDS RELATIVE ${from} ${from}/*)
  endif()
  set(units "")
  foreach(entry IN LISTS entries)
    string(REPLACE "@X@" "${entry}" marker "${INITBENCH_${upper}_MARKER}")
    if(IS_DIRECTORY ${from}/${entry} AND EXISTS ${from}/${entry}/${marker})
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

# PATH with CONTENT, left alone when it holds that already (so that nothing rebuilds). Not
# file(CONFIGURE): it would expand ${} and @@ in the help texts.
function(_initbench_write_if_changed path content)
  if(EXISTS ${path})
    file(READ ${path} old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE ${path} "${content}")
endfunction()

# TEXT as a C++ string literal.
function(_initbench_cxx_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# MEMBER of the JSON object OBJECT (of FILE), or FALLBACK where it has none; with FALLBACK
# REQUIRED, a missing member stops the configure.
function(_initbench_json_member out object member file fallback)
  string(JSON value ERROR_VARIABLE error GET "${object}" ${member})
  if(error)
    if(fallback STREQUAL "REQUIRED")
      message(FATAL_ERROR "${file}: no \"${member}\" in ${object}")
    endif()
    set(value "${fallback}")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# Stops the configure when OBJECT (of FILE) has a member not in the list ALLOWED: a
# misspelled field would otherwise be dropped without a word.
function(_initbench_json_only object file allowed)
  string(JSON count LENGTH "${object}")
  if(count EQUAL 0)
    return()
  endif()
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON member MEMBER "${object}" ${i})
    if(NOT member IN_LIST allowed)
      string(REPLACE ";" ", " allowed "${allowed}")
      message(FATAL_ERROR "${file}: unknown field \"${member}\" (known: ${allowed})")
    endif()
  endforeach()
endfunction()

# One row of a load's key table (common/key_rows.h's makers) from KEY, a member of "keys".
# Sets NEEDS_COUNTS in the caller when the key's items are counts (check_count_item).
function(_initbench_key_row out key file)
  _initbench_json_only("${key}" ${file} "name;type;default;min;max;choices;items;shown_as;help")
  foreach(field name type help)
    _initbench_json_member(${field} "${key}" ${field} ${file} REQUIRED)
  endforeach()
  _initbench_json_member(def "${key}" default ${file} "")
  _initbench_json_member(min "${key}" min ${file} "")
  _initbench_json_member(max "${key}" max ${file} "")
  _initbench_json_member(items "${key}" items ${file} "")
  _initbench_json_member(shown_as "${key}" shown_as ${file} "")
  _initbench_cxx_string(name "${name}")
  _initbench_cxx_string(def "${def}")
  _initbench_cxx_string(help "${help}")
  if(type STREQUAL "uint" OR type STREQUAL "seconds")
    if(min STREQUAL "" OR max STREQUAL "")
      message(FATAL_ERROR "${file}: key ${name} (${type}) needs \"min\" and \"max\"")
    endif()
    set(row "${type}_key(${name}, ${def}, ${min}, ${max}, ${help})")
  elseif(type STREQUAL "enum")
    _initbench_json_member(choices "${key}" choices ${file} REQUIRED)
    string(JSON count LENGTH "${choices}")
    math(EXPR last "${count} - 1")
    set(joined "")
    foreach(i RANGE ${last})
      string(JSON choice GET "${choices}" ${i})
      list(APPEND joined "${choice}")
    endforeach()
    string(REPLACE ";" "|" joined "${joined}")
    set(row "enum_key(${name}, ${def}, \"${joined}\", ${help})")
  elseif(type STREQUAL "list" AND NOT max STREQUAL "")
    set(row "count_list_key(${name}, ${def}, ${min}, ${max}, ${help})")
  elseif(type STREQUAL "list" AND items STREQUAL "counts")
    set(row "checked_key(plain_key(${name}, Kind::list, ${def}, ${help}), check_count_item)")
    set(NEEDS_COUNTS ON PARENT_SCOPE)
  elseif(type STREQUAL "list" OR type STREQUAL "string" OR type STREQUAL "flag")
    set(row "plain_key(${name}, Kind::${type}, ${def}, ${help})")
  else()
    message(FATAL_ERROR "${file}: key ${name} has the unknown type \"${type}\" "
                        "(known: uint, seconds, enum, list, string, flag)")
  endif()
  if(NOT items STREQUAL "" AND NOT items STREQUAL "counts")
    message(FATAL_ERROR "${file}: key ${name}: \"items\" can only be \"counts\"")
  endif()
  if(NOT shown_as STREQUAL "")
    set(row "shown_as(\"${shown_as}\", ${row})")
  endif()
  set(${out} "${row}" PARENT_SCOPE)
endfunction()

# OUT_DIR/payload/X/X_load.h for every load X: its LoadDecl X_declaration and its key table
# X_keys, from payload/X/load.json. Written at configure time, and again when a load.json
# changes (it is a configure dependency).
function(initbench_write_load_declarations out_dir)
  initbench_catalog_units(units payload load)
  foreach(unit IN LISTS units)
    string(REPLACE "|" ";" parts "${unit}")
    list(GET parts 0 stem)
    list(GET parts 1 header)
    set(file ${INITBENCH_CATALOG_ROOT}/payload/${stem}/load.json)
    if(NOT CMAKE_SCRIPT_MODE_FILE)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
    endif()
    file(READ ${file} json)
    string(JSON type ERROR_VARIABLE error TYPE "${json}")
    if(error OR NOT type STREQUAL "OBJECT")
      message(FATAL_ERROR "${file}: not a JSON object: ${error}")
    endif()
    _initbench_json_only("${json}" ${file} "op_unit;help;sweep;keys")
    _initbench_json_member(op_unit "${json}" op_unit ${file} REQUIRED)
    _initbench_json_member(help "${json}" help ${file} REQUIRED)
    _initbench_json_member(sweep "${json}" sweep ${file} "")
    _initbench_json_member(keys "${json}" keys ${file} "[]")
    _initbench_cxx_string(op_unit "${op_unit}")
    _initbench_cxx_string(help "${help}")
    _initbench_cxx_string(sweep "${sweep}")
    set(NEEDS_COUNTS OFF)
    set(rows "")
    string(JSON count LENGTH "${keys}")
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON key GET "${keys}" ${i})
        _initbench_key_row(row "${key}" ${file})
        string(APPEND rows "    ${row},\n")
      endforeach()
      set(table "inline constexpr KeySpec ${stem}_keys[] = {\n${rows}};\n\n")
      set(keys_member "${stem}_keys")
    else()
      set(table "")
      set(keys_member "{}")
    endif()
    set(includes "#include \"common/load_decl.h\"\n")
    if(NEEDS_COUNTS)
      string(APPEND includes "#include \"common/external_load.h\" // check_count_item\n")
    endif()
    _initbench_write_if_changed(${out_dir}/${header}
"// Written by cmake/Catalog.cmake from payload/${stem}/load.json; not edited by hand.
#pragma once

${includes}
namespace initbench {

${table}inline constexpr LoadDecl ${stem}_declaration = {
    .name = \"${stem}\", .op_unit = ${op_unit}, .keys = ${keys_member}, .sweep = ${sweep},
    .help = ${help}};

} // namespace initbench
")
  endforeach()
endfunction()

# As a script, for a build outside CMake (scripts/fuzz.sh): the loads' headers and both
# catalogs into DIR, from the units of this tree or of CATALOG_ROOT.
#   cmake -DCATALOG_DIR=DIR [-DCATALOG_ROOT=TREE] -P cmake/Catalog.cmake
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED CATALOG_DIR)
  initbench_write_load_declarations(${CATALOG_DIR})
  initbench_write_catalog(${CATALOG_DIR}/load_catalog.h payload load LoadDecl)
  initbench_write_catalog(${CATALOG_DIR}/probe_catalog.h bpf probe ProbeDecl)
endif()
