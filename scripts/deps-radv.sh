#!/usr/bin/env bash
# Builds today's RADV (Mesa's AMD Vulkan driver) from Debian trixie's source
# packages into the per-machine cache, for `waverun isa --icd=...`. Opt-in:
# scripts/setup.sh does not call it (36 min at -j1 on two shared cores, see
# docs/waverun.md).
#
# Why: bookworm's RADV (Mesa 22.3) knows no family newer than gfx1103 and
# older names only; Mesa 25 knows RDNA3.5/RDNA4 and compiles with today's ACO.
# Mesa 25 wants more than bookworm has, and this script gets around each:
#   - libdrm >= 2.4.121 (bookworm: 2.4.114): trixie's libdrm source is built
#     here, static and amdgpu only, so the driver needs no rpath and no other
#     libdrm on the machine;
#   - meson >= 1.1 (bookworm: 1.0.1; trixie's meson source cannot be fetched
#     from this archive): Mesa's top meson.build is edited after unpacking
#     (minimum version, and its three feature.disable_if() calls, a 1.1
#     feature, written as the equivalent feature.require(not ...)); the
#     script stops if an edit did not apply;
#   - Debian's /usr/bin/python3 is put first on PATH (Mesa's generators need
#     mako, yaml and packaging, which a pyenv python lacks).
# LLVM 15 (bookworm's llvm-15-dev) is linked only so that RADV prints real
# disassembly; shaders are still compiled by ACO.
#
# Contract (as scripts/deps.sh): versions pinned below; tarballs fetched by
# apt-helper and checked against the SHA-256 in trixie's signed Sources index;
# the archive address derived from the machine's own apt entries; cached in
# $WAVEOPT_DEPS_CACHE (default /var/cache/waveopt as root, else
# ~/.cache/waveopt) under a key of the versions, this recipe, the compiler and
# LLVM; <repo>/.deps/radv points at the entry.
#
# Layout of a cache entry (<cache>/radv-<key>/):
#   libvulkan_radeon.so   the driver
#   icd.json              Vulkan loader manifest naming the .so in this entry
#   versions              what was built; written last (the entry is complete)
set -euo pipefail

MESA_VERSION=25.0.7-2+deb13u1
LIBDRM_VERSION=2.4.124-2
# Bump when the build below changes in a way that changes its output.
RECIPE=1

repo=$(cd "$(dirname "$0")/.." && pwd)
log() { printf 'deps-radv: %s\n' "$*" >&2; }
die() { printf 'deps-radv: error: %s\n' "$*" >&2; exit 1; }
start=$SECONDS

# Mesa's build scripts import mako/yaml/packaging: Debian's python, not a shim.
export PATH=/usr/bin:/bin:$PATH

if [ "$(id -u)" = 0 ]; then
  cache=${WAVEOPT_DEPS_CACHE:-/var/cache/waveopt}
else
  cache=${WAVEOPT_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/waveopt}
fi

# --- bookworm build dependencies ----------------------------------------------
build_deps=(meson ninja-build pkg-config python3-mako python3-yaml python3-packaging
            glslang-tools llvm-15-dev libelf-dev libzstd-dev zlib1g-dev libexpat1-dev)
missing=()
for p in "${build_deps[@]}"; do
  dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "missing packages (install as root): ${missing[*]}"
  log "installing ${missing[*]}"
  apt-get install -y -qq "${missing[@]}" >/dev/null ||
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
    die "apt-get install ${missing[*]} failed"
fi
llvm_config=/usr/bin/llvm-config-15
[ -x "$llvm_config" ] || die "$llvm_config is missing (package llvm-15-dev)"

compiler=$(cc --version | head -n1)
key=$(printf '%s\n' "$MESA_VERSION" "$LIBDRM_VERSION" "$RECIPE" "$compiler" \
        "llvm $("$llvm_config" --version)" | sha256sum | cut -c1-16)
entry="$cache/radv-$key"
mkdir -p "$cache" "$repo/.deps"

link_entry() {
  ln -sfn "$entry" "$repo/.deps/radv"
  log "ready: $(tr '\n' ' ' <"$entry/versions")-> $entry"
  log "use: waverun isa ... --icd=$repo/.deps/radv/icd.json"
}

if [ -f "$entry/versions" ]; then
  link_entry
  exit 0
fi

# One build per machine at a time (shared with scripts/deps.sh).
exec 9>"$cache/lock"
flock 9
if [ -f "$entry/versions" ]; then
  link_entry
  exit 0
fi

work="$entry.tmp"
rm -rf "$work" "$entry"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/dl" "$work/src"

# --- a private apt configuration that sees trixie's source index only ------
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
    awk '/^Checksums-Sha256:/{f=1; next} /^[^ ]/{f=0} f && $3 ~ /\.orig\.tar\.[a-z0-9]+$/ {print $1, $3}')
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

log "fetching libdrm $LIBDRM_VERSION, mesa $MESA_VERSION"
tarball=$(fetch libdrm "$LIBDRM_VERSION") || exit 1
unpack "$tarball" "$work/src/libdrm"
tarball=$(fetch mesa "$MESA_VERSION") || exit 1
unpack "$tarball" "$work/src/mesa"
rm -rf "$work/dl"

jobs=${WAVEOPT_JOBS:-$(nproc)}  # WAVEOPT_JOBS=1 on a shared machine

# --- libdrm: static, amdgpu only ----------------------------------------------
log "building libdrm ($jobs jobs)"
meson setup "$work/b-libdrm" "$work/src/libdrm" --prefix="$work/libdrm" --libdir=lib \
  --buildtype=release -Ddefault_library=static -Damdgpu=enabled -Dintel=disabled \
  -Dradeon=disabled -Dnouveau=disabled -Dvmwgfx=disabled -Domap=disabled -Dexynos=disabled \
  -Dfreedreno=disabled -Dtegra=disabled -Dvc4=disabled -Detnaviv=disabled \
  -Dcairo-tests=disabled -Dman-pages=disabled -Dvalgrind=disabled -Dtests=false \
  -Dinstall-test-programs=false >"$work/b-libdrm.log" 2>&1 &&
  ninja -C "$work/b-libdrm" -j"$jobs" install >>"$work/b-libdrm.log" 2>&1 ||
  die "building libdrm failed: see $work/b-libdrm.log"

# --- Mesa's meson.build for meson 1.0 -----------------------------------------
# feature.disable_if(C, ...) is feature.require(not C, ...) (meson 1.1 docs):
# both turn an auto feature off and make an enabled one an error when C holds.
mb="$work/src/mesa/meson.build"
perl -0pi -e '
  s/meson_version : \x27>= 1\.1\.0\x27/meson_version : \x27>= 1.0.0\x27/;
  s/\.disable_if\(not /.require(/g;
  s/\.disable_if\((get_option\(\x27intel-bvh-grl\x27\) and \\\n\s*host_machine\.cpu_family\(\) != \x27x86_64\x27),/.require(not ($1),/;
' "$mb"
grep -q "meson_version : '>= 1.0.0'" "$mb" ||
  die "Mesa's meson.build: the meson_version edit did not apply (has Mesa's text changed?)"
if grep -n 'disable_if(' "$mb" >&2; then
  die "Mesa's meson.build: a disable_if() call above was not rewritten for meson 1.0"
fi
[ "$(grep -c '\.require(' "$mb")" -ge 3 ] ||
  die "Mesa's meson.build: the disable_if -> require edits did not apply"
if grep -rln --include=meson.build 'disable_if(' "$work/src/mesa" >&2; then
  die "more disable_if() calls (meson >= 1.1) in the meson.build files above"
fi

# --- RADV ---------------------------------------------------------------------
printf "[binaries]\nllvm-config = '%s'\n" "$llvm_config" >"$work/llvm15.ini"
log "configuring Mesa (RADV only; log: $work/b-mesa.log)"
PKG_CONFIG_PATH="$work/libdrm/lib/pkgconfig" meson setup "$work/b-mesa" "$work/src/mesa" \
  --buildtype=release --native-file "$work/llvm15.ini" \
  -Dvulkan-drivers=amd -Dgallium-drivers= -Dplatforms= -Dglx=disabled -Degl=disabled \
  -Dgbm=disabled -Dllvm=enabled -Damd-use-llvm=true -Dshared-llvm=enabled \
  >"$work/b-mesa.log" 2>&1 || die "configuring Mesa failed: see $work/b-mesa.log"
log "building RADV ($jobs jobs; the long part)"
ninja -C "$work/b-mesa" -j"$jobs" src/amd/vulkan/libvulkan_radeon.so \
  src/amd/vulkan/radeon_icd.x86_64.json >>"$work/b-mesa.log" 2>&1 ||
  die "building RADV failed: see $work/b-mesa.log"

so="$work/b-mesa/src/amd/vulkan/libvulkan_radeon.so"
if readelf -d "$so" | grep -E 'RPATH|RUNPATH|libdrm' >&2; then
  die "the driver links a shared libdrm or carries an rpath (see above)"
fi
cp "$so" "$work/libvulkan_radeon.so"
api=$(sed -nE 's/.*"api_version": *"([^"]+)".*/\1/p' "$work/b-mesa/src/amd/vulkan/radeon_icd.x86_64.json")
[ -n "$api" ] || die "no api_version in Mesa's generated ICD manifest"
# The manifest names the .so where it will be once the entry is renamed.
printf '{\n    "ICD": {\n        "api_version": "%s",\n        "library_path": "%s"\n    },\n    "file_format_version": "1.0.0"\n}\n' \
  "$api" "$entry/libvulkan_radeon.so" >"$work/icd.json"
rm -rf "$work/b-mesa" "$work/b-libdrm" "$work/libdrm" "$work/src" "$work/apt" "$work/llvm15.ini"

printf 'mesa %s\nlibdrm %s\nllvm %s\n' "$MESA_VERSION" "$LIBDRM_VERSION" \
  "$("$llvm_config" --version)" >"$work/versions"
mv "$work" "$entry"
log "built in $((SECONDS - start)) s ($(( (SECONDS - start) / 60 )) min)"
link_entry
