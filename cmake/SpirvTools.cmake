# Locates SPIRV-Tools: the static libraries and tools scripts/deps.sh built
# from Debian trixie's source package (WAVEOPT_DEPS, default
# <repo>/.deps/current), plus that source tree's internal `source/opt`
# headers and the `.inc` tables its build generated. Defines the interface
# target `waveopt_spirv_tools` (headers + libraries) and
# WAVEOPT_SPIRV_TOOLS_VERSION.
#
# With WAVEOPT_SPIRV_TOOLS_SOURCE_DIR set, the user's tree is built as a
# subproject instead, so headers and libraries match by construction.

add_library(waveopt_spirv_tools INTERFACE)

function(_waveopt_spirv_tools_version_from_changes dir out)
  file(STRINGS "${dir}/CHANGES" lines REGEX "^v[0-9]+\\.[0-9]+" LIMIT_COUNT 1)
  string(REGEX MATCH "^v[0-9]+\\.[0-9]+(\\.[0-9]+)?" v "${lines}")
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

if(WAVEOPT_SPIRV_TOOLS_SOURCE_DIR)
  set(_src "${WAVEOPT_SPIRV_TOOLS_SOURCE_DIR}")
  if(NOT EXISTS "${_src}/source/opt/pass.h")
    message(FATAL_ERROR "WAVEOPT_SPIRV_TOOLS_SOURCE_DIR=${_src} is not a SPIRV-Tools source tree (no source/opt/pass.h)")
  endif()
  if(NOT DEFINED SPIRV-Headers_SOURCE_DIR)
    if(EXISTS "${WAVEOPT_DEPS}/prefix/include/spirv/unified1/spirv.core.grammar.json")
      set(SPIRV-Headers_SOURCE_DIR "${WAVEOPT_DEPS}/prefix" CACHE PATH "")
    else()
      set(SPIRV-Headers_SOURCE_DIR /usr CACHE PATH "")
    endif()
  endif()
  set(SPIRV_SKIP_TESTS ON CACHE BOOL "" FORCE)
  set(SPIRV_SKIP_EXECUTABLES ON CACHE BOOL "" FORCE)
  set(SPIRV_WERROR OFF CACHE BOOL "" FORCE)
  add_subdirectory("${_src}" "${CMAKE_BINARY_DIR}/spirv-tools" EXCLUDE_FROM_ALL)
  target_include_directories(waveopt_spirv_tools SYSTEM INTERFACE
    "${_src}" "${_src}/include" "${CMAKE_BINARY_DIR}/spirv-tools")
  target_link_libraries(waveopt_spirv_tools INTERFACE SPIRV-Tools-opt SPIRV-Tools-static)
  _waveopt_spirv_tools_version_from_changes("${_src}" WAVEOPT_SPIRV_TOOLS_VERSION)
  return()
endif()

set(_deps "${WAVEOPT_DEPS}")
set(_src "${_deps}/spirv-tools-src")
set(_gen "${_deps}/spirv-tools-gen")
if(NOT EXISTS "${_src}/source/opt/pass.h" OR NOT EXISTS "${_gen}/core.insts-unified1.inc")
  message(FATAL_ERROR
    "SPIRV-Tools is not built in ${_deps} (no source/opt/pass.h or generated tables).\n"
    "Run scripts/setup.sh (as root) to build the pinned SPIR-V toolchain, "
    "or set WAVEOPT_SPIRV_TOOLS_SOURCE_DIR to your own SPIRV-Tools source tree.")
endif()
find_package(SPIRV-Tools REQUIRED CONFIG PATHS "${_deps}/prefix" NO_DEFAULT_PATH)
find_package(SPIRV-Tools-opt REQUIRED CONFIG PATHS "${_deps}/prefix" NO_DEFAULT_PATH)
# Configuration runs again when scripts/setup.sh builds another version.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_deps}/versions")

# Versions: the source tree's CHANGES vs the string built into the library.
_waveopt_spirv_tools_version_from_changes("${_src}" _hdr_version)
include(${CMAKE_CURRENT_LIST_DIR}/waveoptSpirvToolsVersion.cmake)
waveopt_spirv_tools_version(SPIRV-Tools-static _lib_version _lib)
if(NOT _hdr_version OR NOT _lib_version OR NOT _hdr_version STREQUAL _lib_version)
  message(FATAL_ERROR
    "SPIRV-Tools version mismatch: headers in ${_src} are ${_hdr_version}, "
    "library ${_lib} is ${_lib_version}. Re-run scripts/setup.sh so both come from the same version.")
endif()
set(WAVEOPT_SPIRV_TOOLS_VERSION "${_hdr_version}")
message(STATUS "SPIRV-Tools ${_lib_version}: library ${_lib}, opt headers ${_src}")

target_include_directories(waveopt_spirv_tools SYSTEM INTERFACE "${_src}" "${_src}/include" "${_gen}")
target_link_libraries(waveopt_spirv_tools INTERFACE SPIRV-Tools-opt SPIRV-Tools-static)
