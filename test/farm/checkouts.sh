#!/usr/bin/env bash
# Two checkouts of test/farm/consumer at different paths (one built in a
# build directory inside it with ninja -j1, one outside it with -j2) build
# byte-identical shader sets through waveopt_add_shaders(), and no output
# names either checkout. Usage: checkouts.sh <waveopt> <source root> <work>
set -euo pipefail
waveopt=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "checkouts: $*" >&2; exit 1; }

# build <checkout> <build dir> <jobs>
build() {
  cp -r "$src/test/farm/consumer" "$1"
  cmake -G Ninja -S "$1" -B "$2" -DWAVEOPT_CLI="$waveopt" -DWAVEOPT_CMAKE_DIR="$src/cmake" \
    > "$2.configure.log" 2>&1 || { cat "$2.configure.log"; fail "configuring $1 failed"; }
  ninja -C "$2" -j "$3" > "$2.log" 2>&1 || { cat "$2.log"; fail "building $1 failed"; }
}
a=$work/a/src b=$work/somewhere/much/deeper/b
mkdir -p "$work/a" "$(dirname "$b")"
build "$a" "$a/build" 1
build "$b" "$work/b-build" 2

outs=$(cd "$a/build/spirv" && find . -type f ! -name '*.d' | sort)
[ "$(echo "$outs" | wc -l)" = 4 ] || fail "expected 4 outputs, got: $outs"
[ "$outs" = "$(cd "$work/b-build/spirv" && find . -type f ! -name '*.d' | sort)" ] ||
  fail "the checkouts built different sets of outputs"
for f in $outs; do
  cmp "$a/build/spirv/$f" "$work/b-build/spirv/$f" || fail "$f differs between the checkouts"
  if grep -q -e "$work" "$a/build/spirv/$f"; then fail "$f names its checkout's path"; fi
  case $f in *.spv) spirv-val --target-env vulkan1.1 "$a/build/spirv/$f" ;; esac
done
echo "checkouts: $(echo $outs) identical"

# The per-source settings took effect; names are relative to the tree.
# dis <output> <pattern>: its disassembly has a line matching <pattern>.
dis() { spirv-dis "$a/build/spirv/$1" > "$work/dis.txt" && grep -q "$2" "$work/dis.txt"; }
dis shaders/pixel.hlsl.spv 'OpEntryPoint Fragment .* "PSMain"' || fail "pixel.hlsl is no fragment shader"
dis shaders/count.comp.spv 'OpString "shaders/include/weight.glsl"' || fail "no relative include name"
dis shaders/count.comp.spv 'OpString "shaders/count.comp"' || fail "no relative source name"
dis gen/gen.comp.spv 'OpString "_build/gen/gen.comp"' || fail "no _build name for a generated source"
grep -q 'void main' "$a/build/spirv/shaders/sub/blur.comp.glsl" || fail "blur.comp was not emitted as GLSL"
grep -q -- '--target=amd --spec-id-base=50' "$a/build/build.ninja" ||
  fail "WAVEOPT_TARGET and WAVEOPT_FLAGS were not passed"
echo "checkouts: per-source settings and relative names in place"
