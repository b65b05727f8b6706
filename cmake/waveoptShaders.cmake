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
#               source directory becomes OUTPUT_DIR/<dir>/<name>.spv.
#
# The target's WAVEOPT_OUTPUTS property lists the outputs.
include_guard(GLOBAL)

cmake_policy(PUSH)
# Depfile paths relative to the build tree, with Ninja and Makefiles alike.
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)
endif()

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
  set(outputs "")
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(abs "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
    if(rel MATCHES "^\\.\\./")
      get_filename_component(rel "${abs}" NAME)
    endif()
    set(out "${arg_OUTPUT_DIR}/${rel}.spv")
    get_filename_component(out_dir "${out}" DIRECTORY)
    add_custom_command(OUTPUT "${out}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
      COMMAND waveopt::cli ${arg_FLAGS} "${abs}" -o "${out}" -MD -MF "${out}.d"
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
