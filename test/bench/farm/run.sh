#!/usr/bin/env bash
# The permutation-set benchmark (docs/benchmarks-farm.md), not a test:
#
#   bash test/bench/farm/run.sh <waveopt build dir> <work dir>
#
# installs the shaders component of the build into <work dir>/prefix, then
# builds test/bench/farm (8 kernels × 128 -D permutations = 1,024 variants)
# with Ninja through waveopt_add_shaders() and through glslangValidator
# alone; times the full build, a no-op rebuild and the rebuild after touching
# each include; runs the same 1,024 variants as one `waveopt --batch` list at
# --jobs 1 and at one job per processor with peak memory; prints a Markdown
# table. glslangValidator and the tools come from PATH. FARM_WG_SIZES="64"
# (default "64 128 256 512") runs a quarter of the set (256 variants).
#
#   bash test/bench/farm/run.sh <build> <work> --check
#
# is the cheap correctness part (ctest farm_incremental, on a copy of the
# project): 8 variants; a no-op rebuild runs nothing; touching an include
# rebuilds exactly the kernels that include it, directly or through another
# include; touching a kernel rebuilds it only.
set -euo pipefail
script_dir=$(cd "$(dirname "$0")" && pwd)
build=$1 work=$2 mode=${3:-bench}
jobs=$(nproc)
rm -rf "$work" && mkdir -p "$work/src"
# A copy of the project: touching its files leaves the checkout alone.
cp -r "$script_dir/CMakeLists.txt" "$script_dir/shaders" "$work/src/"
here=$work/src
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" --component shaders > /dev/null
inc=$here/shaders/include
fail() { echo "farm: $*" >&2; exit 1; }

# configure <dir> <tool> [cmake args...]
configure() {
  local dir=$1 tool=$2
  shift 2
  cmake -G Ninja -S "$here" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DFARM_TOOL="$tool" "$@" \
    > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; fail "configuring $dir failed"; }
}

# measure <log> <command...>: runs it under peakmem.py (its output to <log>)
# and sets wall, cpu, total_kib, one_kib.
measure() {
  local log=$1
  shift
  python3 "$script_dir/peakmem.py" "$@" > "$log" 2>&1 || { cat "$log"; fail "$* failed"; }
  read -r wall cpu total_kib one_kib < <(sed -n \
    's/^peakmem: wall_s=\(.*\) cpu_s=\(.*\) peak_total_kib=\(.*\) peak_process_kib=\(.*\)/\1 \2 \3 \4/p' "$log")
}

# run_ninja <dir>: builds (measure); the outputs it built (the -o of each
# command ninja ran) go to <dir>.built, one kernel file name a line.
run_ninja() {
  local dir=$1
  measure "$dir.ninja.log" ninja -C "$dir" -v -j"$jobs"
  grep -o -- ' -o [^ ]*\.spv' "$dir.ninja.log" | sed 's/^ -o //' | sort -u | xargs -r -n1 basename \
    | sed 's/\.spv$//' | sort > "$dir.built" || true
}

# dependents <file>: the kernels (name.comp) that include <file>, directly or
# through another include.
dependents() {
  local name=$1 k
  for k in "$here"/shaders/*.comp; do
    if includes "$k" "$name"; then basename "$k"; fi
  done
}
includes() {
  local file=$1 name=$2 i
  for i in $(sed -n 's/^#include "\(.*\)"/\1/p' "$file"); do
    [ "$i" = "$name" ] && return 0
    includes "$inc/$i" "$name" && return 0
  done
  return 1
}

# expect_rebuild <dir> <what> <permutations> <kernel.comp>...: after touching
# <what>, ninja rebuilt exactly those kernels in every permutation.
expect_rebuild() {
  local dir=$1 what=$2 perms=$3 k
  shift 3
  run_ninja "$dir"
  sort -o "$dir.want" <(for k in "$@"; do for _ in $(seq "$perms"); do echo "$k"; done; done)
  cmp -s "$dir.built" "$dir.want" ||
    { diff "$dir.want" "$dir.built" | head; fail "$what: rebuilt other than exactly its dependents"; }
  echo "farm: $what: rebuilt $(wc -l < "$dir.built") variants ($*)"
}

if [ "$mode" = --check ]; then
  configure "$work/check" waveopt -DFARM_WG_SIZES=64 -DFARM_MODES=0 -DFARM_SWITCHES=0
  run_ninja "$work/check"
  [ "$(wc -l < "$work/check.built")" = 8 ] || fail "the first build built $(wc -l < "$work/check.built") variants, not 8"
  for s in "$work"/check/spv/*/shaders/*.spv; do spirv-val --target-env vulkan1.1 "$s"; done
  run_ninja "$work/check"
  [ ! -s "$work/check.built" ] || fail "a no-op rebuild built $(wc -l < "$work/check.built") variants"
  for f in bins.glsl falloff.glsl tile.glsl; do  # direct, through lighting.glsl, four kernels
    touch "$inc/$f"
    expect_rebuild "$work/check" "$f touched" 1 $(dependents "$f")
  done
  touch "$here/shaders/compact.comp"
  expect_rebuild "$work/check" "compact.comp touched" 1 compact.comp
  echo "farm: no-op and incremental rebuilds exact"
  exit 0
fi

# The benchmark.
wg_sizes=${FARM_WG_SIZES:-64 128 256 512}
row() { printf '| %s | %s |\n' "$1" "$2"; }
echo "| $(nproc) processors, Ninja -j$jobs | wall (CPU: user + sys) |"
echo "|---|---|"
configure "$work/glslang" glslang "-DFARM_WG_SIZES=${wg_sizes// /;}"
configure "$work/waveopt" waveopt "-DFARM_WG_SIZES=${wg_sizes// /;}"
variants=$(grep -c '^build .*\.spv:' "$work/waveopt/build.ninja")
run_ninja "$work/glslang"
row "full build of $variants variants, glslangValidator alone" "$wall s ($cpu s)"
run_ninja "$work/waveopt"
[ "$(wc -l < "$work/waveopt.built")" = "$variants" ] ||
  fail "the full build built $(wc -l < "$work/waveopt.built") of $variants"
row "full build of $variants variants, waveopt -O through waveopt_add_shaders()" "$wall s ($cpu s)"
best=""
for _ in 1 2 3; do
  run_ninja "$work/waveopt"
  [ ! -s "$work/waveopt.built" ] || fail "a no-op rebuild built something"
  best=$(printf '%s\n' $best "$wall" | sort -g | head -n1)
done
row "no-op rebuild (best of 3)" "$best s"
for f in falloff.glsl tile.glsl common.glsl; do
  touch "$inc/$f"
  run_ninja "$work/waveopt"
  row "touch $f ($(dependents $f | wc -l) of 8 kernels include it): rebuilt $(wc -l < "$work/waveopt.built") variants" \
      "$wall s ($cpu s)"
done

# The same variants as one --batch list.
list=$work/permutations.txt
: > "$list"
for wg in $wg_sizes; do for m in 0 1 2 3; do for c in 0 1; do for s in 0 1; do for f in 0 1; do
  for k in "$here"/shaders/*.comp; do
    n=$(basename "$k")
    echo "$k -o p_${wg}_${m}_$c$s$f/$n.spv -DWG_SIZE=$wg -DMODE=$m -DCLAMP=$c -DSCALE=$s -DFAST=$f" >> "$list"
  done
done; done; done; done; done
n=$(wc -l < "$list")
for j in "$jobs" 1; do
  measure "$work/batch$j.log" "$prefix/bin/waveopt" -O --target-env=vulkan1.1 -I"$inc" \
    --batch "$list" --out-dir "$work/batch$j" --jobs "$j"
  row "--batch of $n variants, --jobs $j" \
      "$wall s ($cpu s), $(awk "BEGIN { printf \"%.1f\", $n / $wall }") variants/s, peak RSS $((total_kib / 1024)) MiB in all, $((one_kib / 1024)) MiB the largest process"
done
