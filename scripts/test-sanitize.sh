#!/usr/bin/env bash
# The sanitizer half of CI (docs/robustness.md), after scripts/test.sh:
#  1. build-asan: the whole project with -DWAVEOPT_SANITIZE=ON (ASan+UBSan,
#     gcc) and its unit, lit and install tests. The differential suite
#     (`diff`) is left out: it runs every shader on lavapipe, whose LLVM JIT
#     is not instrumented, so under ASan it only gets several times slower
#     while checking the same waveopt/waverun code the lit suite already runs
#     under ASan (test/lit/waverun runs waverun on lavapipe). So is
#     install_and_consume: it builds a consumer without sanitizers against the
#     installed (instrumented) archive, which cannot link; it tests packaging,
#     which the normal build already does.
#  2. build-fuzz: the libFuzzer targets (clang-14, ASan+UBSan), each replayed
#     on its seeds and regression inputs, then fuzzed for
#     WAVEOPT_FUZZ_SECONDS (default 45) seconds.
# Extra arguments go to the first ctest.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
asan=${WAVEOPT_ASAN_BUILD_DIR:-$repo/build-asan}
fuzz=${WAVEOPT_FUZZ_BUILD_DIR:-$repo/build-fuzz}
seconds=${WAVEOPT_FUZZ_SECONDS:-45}
cd "$repo"

bash scripts/setup.sh
export MESA_SHADER_CACHE_DISABLE=true LP_NUM_THREADS=1
# The robustness sweeps (test/robustness/sweep.py) run waveopt over every test
# shader dozens of times, and each run pays ASan's start-up (~0.25 s, ten
# times an unsanitized -O on a test shader). The unsanitized suite has just
# run them whole; here idempotence (every pass on other passes' shaders: the
# part where ASan finds something) takes every 4th shader, and
# determinism/vulkan10 (sweeps.test: glibc's malloc variables do nothing
# under ASan) are left out. Together they took ~10 of CI's minutes here.
export WAVEOPT_SWEEP_STRIDE=4
export LIT_FILTER_OUT='robustness/sweeps\.test'
# Leaks: glslang, SPIRV-Tools and Mesa keep process-lifetime tables, and the
# CLI leaves through exit() on its error paths; everything else is reported
# and fatal.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

start=$SECONDS
cmake -G Ninja -S . -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWAVEOPT_SANITIZE=ON >/dev/null
cmake --build "$asan"
ctest --test-dir "$asan" --output-on-failure -j"$(nproc)" -E '^(diff|install_and_consume)$' "$@"
echo "test-sanitize: ASan+UBSan suite took $((SECONDS - start)) s"

start=$SECONDS
CC=clang-14 CXX=clang++-14 cmake -G Ninja -S . -B "$fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWAVEOPT_FUZZ=ON -DWAVEOPT_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build "$fuzz" --target fuzz_spirv_optimize fuzz_glsl_optimize fuzz-corpus
ctest --test-dir "$fuzz" --output-on-failure -j"$(nproc)" -L fuzz
echo "test-sanitize: fuzzing took $((SECONDS - start)) s"
