# waveopt_add_shaders(<target> SOURCES <file>...
#                     [FLAGS <flag>...] [OUTPUT_DIR <dir>])
#
# Runs the waveopt command line (waveopt::cli) once per source: one build
# edge per shader, with a depfile (-MD -MF), so that a shader is built again
# when it or a file it #includes changes, and only then. <target> is a
# custom target, built by default (ALL), that depends on every output.
#
#   SOURCES     GLSL (.comp, .vert, ..., .glsl with -S), HLSL (.hlsl) or
#               SPIR-V (.spv, .spvasm) files; relative to the current
#               source directory.
#   FLAGS       waveopt's flags for every source (docs/cli.md); default -O.
#               -I, -D, --target-env=, --remarks-missed=... all go here.
#   OUTPUT_DIR  where the outputs go (default: the current binary directory
#               + /<target>). A source at <dir>/<name> under the current
#               binary directory (generated) or else the current source
#               directory becomes OUTPUT_DIR/<dir>/<name>.spv.
#
# A source's own settings are its source file properties (set in the
# directory that calls this): WAVEOPT_STAGE (-S), WAVEOPT_ENTRY_POINT (-e),
# WAVEOPT_DEFINES (a list of NAME or NAME=VALUE), WAVEOPT_TARGET
# (--target=), WAVEOPT_EMIT (spv, spvasm, glsl or hlsl: the output's
# language and extension) and WAVEOPT_FLAGS (any other flags, after FLAGS).
#
# The outputs are the same bytes wherever the tree is checked out: files
# under the top source directory are recorded relative to it, files under
# the top binary directory as _build/<path> (--source-prefix-map).
#
# The target's WAVEOPT_OUTPUTS property lists the outputs.
include_guard(GLOBAL)

cmake_policy(PUSH)
# Depfile paths relative to the build tree, with Ninja and Makefiles alike.
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)
endif()

# <source>'s own flags (its WAVEOPT_* properties) into <flags_var>, the
# extension of its output into <ext_var>.
function(_waveopt_source_flags source flags_var ext_var)
  set(flags "")
  set(ext .spv)
  foreach(prop STAGE ENTRY_POINT DEFINES TARGET EMIT FLAGS)
    get_source_file_property(value "${source}" WAVEOPT_${prop})
    if(value STREQUAL "NOTFOUND")
      continue()
    elseif(prop STREQUAL "STAGE")
      list(APPEND flags -S "${value}")
    elseif(prop STREQUAL "ENTRY_POINT")
      list(APPEND flags -e "${value}")
    elseif(prop STREQUAL "DEFINES")
      list(TRANSFORM value PREPEND -D)
      list(APPEND flags ${value})
    elseif(prop STREQUAL "TARGET")
      list(APPEND flags "--target=${value}")
    elseif(prop STREQUAL "EMIT")
      if(NOT value MATCHES "^(spv|spvasm|glsl|hlsl)$")
        message(FATAL_ERROR "${source}: WAVEOPT_EMIT is spv, spvasm, glsl or hlsl, not '${value}'")
      endif()
      list(APPEND flags "--emit=${value}")
      set(ext ".${value}")
    else()
      list(APPEND flags ${value})
    endif()
  endforeach()
  set(${flags_var} "${flags}" PARENT_SCOPE)
  set(${ext_var} "${ext}" PARENT_SCOPE)
endfunction()

function(waveopt_add_shaders target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT_DIR" "SOURCES;FLAGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "waveopt_add_shaders(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "waveopt_add_shaders(${target}): no SOURCES")
  endif()
  if(NOT DEFINED arg_FLAGS)
    set(arg_FLAGS -O)
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  endif()
  get_filename_component(arg_OUTPUT_DIR "${arg_OUTPUT_DIR}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  # Recorded file names relative to the tree (the longest prefix wins, so
  # a binary directory inside the source directory maps on its own).
  set(maps "--source-prefix-map=${CMAKE_SOURCE_DIR}="
           "--source-prefix-map=${CMAKE_BINARY_DIR}=_build")
  set(outputs "")
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(abs "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # Generated sources: relative to the binary directory, wherever it is.
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_BINARY_DIR}" "${abs}")
    if(rel MATCHES "^\\.\\./")
      file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
    endif()
    if(rel MATCHES "^\\.\\./")
      get_filename_component(rel "${abs}" NAME)
    endif()
    _waveopt_source_flags("${abs}" own ext)
    set(out "${arg_OUTPUT_DIR}/${rel}${ext}")
    get_filename_component(out_dir "${out}" DIRECTORY)
    add_custom_command(OUTPUT "${out}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
      COMMAND waveopt::cli ${arg_FLAGS} ${own} ${maps} "${abs}" -o "${out}" -MD -MF "${out}.d"
      DEPENDS "${abs}" waveopt::cli
      DEPFILE "${out}.d"
      COMMENT "waveopt ${rel}"
      VERBATIM)
    list(APPEND outputs "${out}")
  endforeach()
  add_custom_target(${target} ALL DEPENDS ${outputs})
  set_target_properties(${target} PROPERTIES WAVEOPT_OUTPUTS "${outputs}")
endfunction()

cmake_policy(POP)
