#!/usr/bin/env bash
# Installs everything waveopt needs on a fresh Debian bookworm machine, as root.
# Idempotent: a second run installs nothing new and re-fetches nothing.
#
# Contract:
#   - every dependency comes from Debian packages;
#   - deb-src entries are derived from the machine's own apt source entries
#     (no archive host is ever written into this repository);
#   - SPIRV-Tools' source of exactly the installed `spirv-tools` version is
#     unpacked under $WAVEOPT_DEPS (default: <repo>/.deps) for its internal
#     opt headers.
#   - `--bench` also installs what test/bench/run.sh uses beyond the build
#     (valgrind for instruction counts, gnuplot for the scaling plot).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
deps=${WAVEOPT_DEPS:-$repo/.deps}
mkdir -p "$deps"

log() { printf 'setup: %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

packages=(
  build-essential cmake ninja-build pkg-config python3 dpkg-dev
  spirv-tools spirv-headers glslang-dev glslang-tools
  spirv-cross libspirv-cross-c-shared-dev
  llvm-14-dev llvm-14-tools libgtest-dev
  libvulkan-dev mesa-vulkan-drivers vulkan-tools
  clang-14 libclang-rt-14-dev
  libmimalloc-dev
)
if [ "${1:-}" = "--bench" ]; then
  packages+=(valgrind gnuplot-nox)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# deb-src: derive from the existing entries so the same archive serves sources.
src_file=/etc/apt/sources.list.d/waveopt-deb-src.sources
need_update=0
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  log "enabling deb-src entries derived from the machine's apt sources"
  tmp=$(mktemp)
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    case "$f" in *waveopt-deb-src*) continue;; esac
    # deb822: copy each stanza whose Types contains deb, with Types: deb-src.
    awk 'BEGIN{RS=""; ORS="\n\n"}
         /(^|\n)Types:[^\n]*(^| )deb( |\n|$)/ {
           gsub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' "$f" >>"$tmp"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -nE 's/^deb (.*)$/deb-src \1/p' "$f" >>"${tmp}.list"
  done
  if [ -s "$tmp" ]; then $SUDO install -m 0644 "$tmp" "$src_file"; fi
  if [ -s "${tmp}.list" ]; then $SUDO install -m 0644 "${tmp}.list" /etc/apt/sources.list.d/waveopt-deb-src.list; fi
  rm -f "$tmp" "${tmp}.list"
  need_update=1
fi

if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ]; then
  log "apt-get update"
  $SUDO apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# lit: llvm-14-tools ships lit.py under /usr/lib/llvm-14/build/utils/lit.
# SPIRV-Tools source of exactly the installed version.
ver=$(dpkg-query -W -f='${Version}' spirv-tools)
upver=${ver#*:}; upver=${upver%-*}
stamp="$deps/spirv-tools-src.version"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$ver" ]; then
  log "fetching the spirv-tools $ver source package"
  rm -rf "$deps/spirv-tools-src" "$deps/srcpkg"
  mkdir -p "$deps/srcpkg"
  ( cd "$deps/srcpkg" && apt-get source -qq --download-only "spirv-tools=$ver" >/dev/null \
      && dpkg-source -x --no-check ./*.dsc src >/dev/null )
  mv "$deps/srcpkg/src" "$deps/spirv-tools-src"
  rm -rf "$deps/srcpkg"
  echo "$ver" >"$stamp"
fi
log "ready: spirv-tools $ver, source in $deps/spirv-tools-src"
