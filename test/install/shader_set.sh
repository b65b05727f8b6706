#!/usr/bin/env bash
# Builds examples/shader_set with CMake and Ninja against the installed
# package (waveopt_add_shaders), then checks the depfiles: nothing to do
# when nothing changed; touching an included file rebuilds exactly the
# shaders that include it (directly or through another include).
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
cp -r "$src/examples/shader_set" "$work/project"
cmake -G Ninja -S "$work/project" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" \
  > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }

fail() { echo "shader set: $*" >&2; exit 1; }

# built <log>: the shaders a ninja run built, sorted, one line.
built() { sed -n 's/^\[[0-9]*\/[0-9]*\] waveopt //p' "$1" | sort | tr '\n' ' '; }

# expect <what> <shaders...>: runs ninja, checks it built exactly those.
expect() {
  local what=$1
  shift
  ninja -C "$work/build" > "$work/ninja.log" 2>&1 || { cat "$work/ninja.log"; fail "$what: ninja failed"; }
  local want got
  want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')
  got=$(built "$work/ninja.log")
  [ "$got" = "$want" ] || { cat "$work/ninja.log"; fail "$what: built '$got', expected '$want'"; }
  echo "shader set: $what: built ${got:-nothing}"
}

expect "first build" shaders/histogram.comp shaders/lights.comp shaders/prefix_count.hlsl \
  shaders/tile_max.comp
for s in histogram.comp lights.comp prefix_count.hlsl tile_max.comp; do
  spirv-val --target-env vulkan1.1 "$work/build/spirv/shaders/$s.spv"
  test -s "$work/build/spirv/shaders/$s.spv.d"
done
grep -q "applied SmallBinSet" "$work/ninja.log" || fail "no remark from the build"
grep -q "applied BatchedLoads" "$work/ninja.log" || fail "lights.comp's loop was not rewritten"
expect "nothing changed" ""

inc=$work/project/shaders/include
touch "$inc/bins.glsl"
expect "bins.glsl touched" shaders/histogram.comp shaders/tile_max.comp
touch "$inc/falloff.glsl"
expect "falloff.glsl (included by lighting.glsl) touched" shaders/lights.comp
touch "$inc/counter.hlsli"
expect "counter.hlsli touched" shaders/prefix_count.hlsl
touch "$work/project/shaders/lights.comp"
expect "lights.comp touched" shaders/lights.comp
expect "nothing changed again" ""

# A shader that stops compiling fails the build with one error line; its
# last good output is left as it was, and the next build tries it again.
out=$work/build/spirv/shaders/lights.comp.spv
cp "$out" "$work/good.spv"
echo 'this is not GLSL' >> "$inc/falloff.glsl"
if ninja -C "$work/build" > "$work/broken.log" 2>&1; then fail "a broken include built"; fi
grep -q "waveopt: error: .*lights.comp" "$work/broken.log" || { cat "$work/broken.log"; fail "no error line"; }
cmp "$out" "$work/good.spv" || fail "a failed build changed the output"
ninja -C "$work/build" -n > "$work/again.log" 2>&1 || true
[ "$(built "$work/again.log")" = "shaders/lights.comp " ] || fail "the failed shader is not built again"
echo "shader set: built through waveopt_add_shaders with depfiles honoured"
