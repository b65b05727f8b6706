#!/usr/bin/env bash
# Builds the SPIR-V toolchain waveopt links against, from Debian trixie's
# source packages, into a per-machine cache; called by scripts/setup.sh.
#
# Why: bookworm's SPIRV-Tools 2023.1 refuses what today's front ends emit
# (every Slang module, newer capabilities) and its glslang 12 cannot compile
# today's shaders. The newer versions come from Debian's own archive as
# *source* packages (a deb-src entry for trixie in a private apt
# configuration: no trixie binary package ever lands on the machine).
#
# Contract:
#   - versions are pinned below; each upstream tarball is fetched by apt,
#     which checks its SHA-256 against the trixie Sources index, whose
#     InRelease signature apt verifies with Debian's archive keyring;
#   - the archive's address is derived from the machine's own apt entries,
#     never written into this repository;
#   - the result is cached in $WAVEOPT_DEPS_CACHE (default
#     /var/cache/waveopt as root, else ~/.cache/waveopt) under a key of the
#     versions, this recipe and the compiler; a second run on the same
#     machine builds nothing, and <repo>/.deps/current points at the entry;
#   - only what waveopt uses is built: SPIRV-Headers; SPIRV-Tools' core and
#     optimizer libraries and spirv-opt/-val/-dis/-as; glslang's libraries
#     and glslangValidator (HLSL included, optimizer enabled for HLSL
#     legalization, against this SPIRV-Tools).
#
# Layout of a cache entry (<cache>/deps-<key>/):
#   prefix/               include/, lib/, lib/cmake/, bin/
#   spirv-tools-src/      SPIRV-Tools' source tree (its internal opt headers)
#   spirv-tools-gen/      the .inc/.h tables its build generated
#   versions              what was built; written last (the entry is complete)
#
# SPIRV-Cross stays bookworm's package (libspirv-cross-c-shared-dev): trixie's
# spirv-cross source package cannot be fetched from this archive (see README).
set -euo pipefail

SPIRV_HEADERS_VERSION=1.6.1+1.4.309.0-1
SPIRV_TOOLS_VERSION=2025.1~rc1-1
GLSLANG_VERSION=15.1.0+1.4.309.0-1
# Bump when the build below changes in a way that changes its output.
RECIPE=1

repo=$(cd "$(dirname "$0")/.." && pwd)
log() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

if [ "$(id -u)" = 0 ]; then
  cache=${WAVEOPT_DEPS_CACHE:-/var/cache/waveopt}
else
  cache=${WAVEOPT_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/waveopt}
fi
compiler=$(c++ --version | head -n1)
key=$(printf '%s\n' "$SPIRV_HEADERS_VERSION" "$SPIRV_TOOLS_VERSION" "$GLSLANG_VERSION" \
        "$RECIPE" "$compiler" | sha256sum | cut -c1-16)
entry="$cache/deps-$key"
mkdir -p "$cache" "$repo/.deps"

link_entry() {
  ln -sfn "$entry" "$repo/.deps/current"
  log "ready: $(tr '\n' ' ' <"$entry/versions")-> $entry"
}

if [ -f "$entry/versions" ]; then
  link_entry
  exit 0
fi

# One build per machine at a time; the loser of the race finds it done.
exec 9>"$cache/lock"
flock 9
if [ -f "$entry/versions" ]; then
  link_entry
  exit 0
fi

start=$SECONDS
work="$entry.tmp"
rm -rf "$work" "$entry"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/dl" "$work/src"

# --- a private apt configuration that sees trixie's source index only ------
# The archive: the URIs of the machine's own entries for bookworm (the main
# archive, not security), deb822 or one-line format.
uris=$( { awk '/^URIs:/{u=$2} /^Suites:/{if ($0 ~ /(^| )bookworm( |$)/) print u}' \
            /etc/apt/sources.list.d/*.sources 2>/dev/null || true
          sed -nE 's/^deb(-src)?( \[[^]]*\])? ([^ ]+) bookworm( .*)?$/\3/p' \
            /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } | sort -u)
[ -n "$uris" ] || die "no bookworm entry in the machine's apt sources to derive trixie's from"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring is missing (package debian-archive-keyring)"
{
  for u in $uris; do
    printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s\n\n' \
      "$u" "$keyring"
  done
} >"$work/apt/trixie.sources"
apt_opts=(-o "Dir::Etc::sourcelist=$work/apt/trixie.sources" -o Dir::Etc::sourceparts=-
          -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
          -o APT::Sandbox::User=root -o Acquire::Retries=3)
log "reading trixie's source index (signature checked against $keyring)"
apt-get "${apt_opts[@]}" -qq update || die "apt-get update of trixie's source index failed"

# fetch <package> <version>: the upstream tarball of exactly that version,
# hash-checked by apt against the signed index; prints its path.
fetch() {
  local pkg=$1 ver=$2 stanza dir name sha
  stanza=$(apt-cache "${apt_opts[@]}" showsrc "$pkg" |
           awk -v v="$ver" 'BEGIN{RS=""} index($0 "\n", "\nVersion: " v "\n") {print; exit}')
  [ -n "$stanza" ] || die "trixie's source index has no $pkg $ver"
  dir=$(printf '%s\n' "$stanza" | awk '/^Directory:/{print $2}')
  read -r sha name < <(printf '%s\n' "$stanza" |
    awk '/^Checksums-Sha256:/{f=1; next} /^[^ ]/{f=0} f && $3 ~ /\.orig\.tar\./ {print $1, $3}')
  [ -n "$name" ] || die "no upstream tarball listed for $pkg $ver"
  for u in $uris; do
    if /usr/lib/apt/apt-helper "${apt_opts[@]}" -qq download-file \
         "$u/$dir/$name" "$work/dl/$name" "SHA256:$sha" >/dev/null 2>&1; then
      printf '%s\n' "$work/dl/$name"
      return 0
    fi
  done
  die "could not download $name (checked against SHA-256 $sha)"
}

unpack() {  # unpack <tarball> <dest>: the tarball's single top directory as <dest>
  mkdir -p "$2.x"
  tar -xf "$1" -C "$2.x"
  mv "$2.x"/* "$2"
  rmdir "$2.x"
}

log "fetching spirv-headers $SPIRV_HEADERS_VERSION, spirv-tools $SPIRV_TOOLS_VERSION, glslang $GLSLANG_VERSION"
tarball=$(fetch spirv-headers "$SPIRV_HEADERS_VERSION") || exit 1
unpack "$tarball" "$work/src/spirv-headers"
tarball=$(fetch spirv-tools "$SPIRV_TOOLS_VERSION") || exit 1
unpack "$tarball" "$work/src/spirv-tools"
tarball=$(fetch glslang "$GLSLANG_VERSION") || exit 1
unpack "$tarball" "$work/src/glslang"

prefix="$work/prefix"
jobs=$(nproc)
cmake_common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
              -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF)

# --- SPIRV-Headers: headers and grammar files only ---------------------------
cmake "${cmake_common[@]}" -S "$work/src/spirv-headers" -B "$work/b-headers" \
  -DSPIRV_HEADERS_ENABLE_TESTS=OFF >/dev/null
cmake --install "$work/b-headers" >/dev/null

# --- SPIRV-Tools: the static core and optimizer libraries, four tools --------
# Only these targets are built (the reducer, linker, linter, differ and the
# shared library are not: a fifth of the build's time), so the package's own
# install rules, which want all of them, are not used: the files are copied
# and a small CMake package is written for the two libraries.
log "building SPIRV-Tools ($jobs jobs)"
cmake "${cmake_common[@]}" -S "$work/src/spirv-tools" -B "$work/b-tools" \
  -DSPIRV-Headers_SOURCE_DIR="$prefix" -DSPIRV_SKIP_TESTS=ON -DSPIRV_WERROR=OFF \
  -DSPIRV_TOOLS_BUILD_STATIC=OFF -DSPIRV_TOOLS_LIBRARY_TYPE=STATIC \
  -DENABLE_SPIRV_TOOLS_INSTALL=OFF >"$work/b-tools.configure.log" 2>&1 ||
  die "configuring SPIRV-Tools failed: see $work/b-tools.configure.log"
ninja -C "$work/b-tools" -j"$jobs" SPIRV-Tools SPIRV-Tools-opt spirv-opt spirv-val spirv-dis \
  spirv-as >"$work/b-tools.log" 2>&1 || die "building SPIRV-Tools failed: see $work/b-tools.log"
mkdir -p "$prefix/bin" "$prefix/lib/cmake/SPIRV-Tools" "$prefix/lib/cmake/SPIRV-Tools-opt" \
  "$prefix/include/spirv-tools" "$work/spirv-tools-gen"
cp "$work/b-tools/source/libSPIRV-Tools.a" "$work/b-tools/source/opt/libSPIRV-Tools-opt.a" "$prefix/lib/"
cp "$work/src/spirv-tools/include/spirv-tools/"*.h* "$prefix/include/spirv-tools/"
for t in spirv-opt spirv-val spirv-dis spirv-as; do cp "$work/b-tools/tools/$t" "$prefix/bin/"; done
cp "$work/b-tools/"*.inc "$work/b-tools/"*.h "$work/spirv-tools-gen/"
cat >"$prefix/lib/cmake/SPIRV-Tools/SPIRV-ToolsConfig.cmake" <<'EOF'
# SPIRV-Tools (static), as built by waveopt's scripts/deps.sh.
get_filename_component(_spvt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
foreach(_t SPIRV-Tools SPIRV-Tools-static)
  if(NOT TARGET ${_t})
    add_library(${_t} STATIC IMPORTED)
    set_target_properties(${_t} PROPERTIES
      IMPORTED_LOCATION "${_spvt_prefix}/lib/libSPIRV-Tools.a"
      INTERFACE_INCLUDE_DIRECTORIES "${_spvt_prefix}/include")
  endif()
endforeach()
set(SPIRV-Tools_LIBRARIES SPIRV-Tools)
set(SPIRV-Tools_INCLUDE_DIRS "${_spvt_prefix}/include")
EOF
cat >"$prefix/lib/cmake/SPIRV-Tools-opt/SPIRV-Tools-optConfig.cmake" <<'EOF'
# SPIRV-Tools-opt (static), as built by waveopt's scripts/deps.sh.
include(CMakeFindDependencyMacro)
find_dependency(SPIRV-Tools CONFIG PATHS "${CMAKE_CURRENT_LIST_DIR}/.." NO_DEFAULT_PATH)
get_filename_component(_spvt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET SPIRV-Tools-opt)
  add_library(SPIRV-Tools-opt STATIC IMPORTED)
  set_target_properties(SPIRV-Tools-opt PROPERTIES
    IMPORTED_LOCATION "${_spvt_prefix}/lib/libSPIRV-Tools-opt.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_spvt_prefix}/include"
    INTERFACE_LINK_LIBRARIES SPIRV-Tools)
endif()
EOF
# The internal headers: the source tree, less what a build never reads.
mv "$work/src/spirv-tools" "$work/spirv-tools-src"
rm -rf "$work/spirv-tools-src/test" "$work/spirv-tools-src/external" "$work/b-tools"

# --- glslang: libraries and glslangValidator ---------------------------------
log "building glslang ($jobs jobs)"
cmake "${cmake_common[@]}" -S "$work/src/glslang" -B "$work/b-glslang" \
  -DCMAKE_PREFIX_PATH="$prefix" -DALLOW_EXTERNAL_SPIRV_TOOLS=ON -DBUILD_EXTERNAL=OFF \
  -DENABLE_OPT=ON -DGLSLANG_TESTS=OFF -DENABLE_SPVREMAPPER=OFF -DENABLE_GLSLANG_JS=OFF \
  -DSPIRV-Tools-opt_DIR="$prefix/lib/cmake/SPIRV-Tools-opt" \
  -DSPIRV-Tools_DIR="$prefix/lib/cmake/SPIRV-Tools" \
  >"$work/b-glslang.configure.log" 2>&1 ||
  die "configuring glslang failed: see $work/b-glslang.configure.log"
ninja -C "$work/b-glslang" -j"$jobs" >"$work/b-glslang.log" 2>&1 ||
  die "building glslang failed: see $work/b-glslang.log"
cmake --install "$work/b-glslang" >/dev/null
rm -rf "$work/b-glslang" "$work/b-headers" "$work/src" "$work/dl" "$work/apt"

printf 'spirv-headers %s\nspirv-tools %s\nglslang %s\n' \
  "$SPIRV_HEADERS_VERSION" "$SPIRV_TOOLS_VERSION" "$GLSLANG_VERSION" >"$work/versions"
mv "$work" "$entry"
log "built in $((SECONDS - start)) s"
link_entry
