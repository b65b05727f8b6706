#!/usr/bin/env bash
# Long fuzzing runs (docs/robustness.md). Builds the libFuzzer targets with
# clang-14 in build-fuzz and runs each for <seconds> (default 3600), keeping
# its corpus in build-fuzz/fuzz-long/<target>/corpus between runs. Crash
# inputs land in build-fuzz/fuzz-long/<target>/crash-*.
#
#   scripts/fuzz.sh [seconds] [spirv_optimize|glsl_optimize ...]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVEOPT_FUZZ_BUILD_DIR:-$repo/build-fuzz}
seconds=${1:-3600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(spirv_optimize glsl_optimize)
cd "$repo"
CC=clang-14 CXX=clang++-14 cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWAVEOPT_FUZZ=ON >/dev/null
cmake --build "$build" --target fuzz-corpus $(printf 'fuzz_%s ' "${targets[@]}")
for t in "${targets[@]}"; do
  seeds=$build/test/fuzz/corpus/spirv
  [ "$t" = glsl_optimize ] && seeds=$build/test/fuzz/corpus/glsl
  echo "=== fuzz_$t for ${seconds}s"
  bash test/fuzz/run_fuzzer.sh long "$build/bin/fuzz_$t" "$build/fuzz-long/$t" "$seconds" "$seeds" \
    $repo/test/fuzz/regressions/$t
done
