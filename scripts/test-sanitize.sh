#!/usr/bin/env bash
# The sanitizer half of CI (docs/robustness.md), after scripts/test.sh: one
# build, build-asan, of the whole project with clang-14,
# -DWAVEOPT_SANITIZE=ON (ASan+UBSan) and -DWAVEOPT_FUZZ=ON (the library
# also gets libFuzzer's coverage, and the two fuzz targets are built). Its
# ctest runs the unit and lit tests under the sanitizers, replays every fuzz
# seed and regression input, and fuzzes each target for
# WAVEOPT_FUZZ_SECONDS (default 45) seconds.
#
# Left out: the differential suite (`diff`), which runs every shader on
# lavapipe, whose LLVM JIT is not instrumented, so under ASan it only gets
# several times slower while checking the same waveopt/waverun code the lit
# suite already runs under ASan (test/lit/waverun runs waverun on lavapipe);
# and install_and_consume, which builds a consumer without sanitizers
# against the installed (instrumented) archive, which cannot link; it tests
# packaging, which the normal build already does.
# Extra arguments go to ctest.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
asan=${WAVEOPT_ASAN_BUILD_DIR:-$repo/build-asan}
seconds=${WAVEOPT_FUZZ_SECONDS:-45}
cd "$repo"

bash scripts/setup.sh
export MESA_SHADER_CACHE_DISABLE=true LP_NUM_THREADS=1
# The robustness sweeps (test/robustness/sweeps.test) run waveopt over every
# test shader dozens of times, and each run pays ASan's start-up (~0.25 s, ten
# times an unsanitized -O on a test shader): the unsanitized suite has just
# run them whole, glibc's malloc variables (determinism) do nothing under
# ASan, and the spirv fuzz target's seed replay runs -O and every pass alone
# over every test shader here, in one process.
export LIT_FILTER_OUT='robustness/sweeps\.test'
# Leaks: glslang, SPIRV-Tools and Mesa keep process-lifetime tables, and the
# CLI leaves through exit() on its error paths; everything else is reported
# and fatal.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

start=$SECONDS
CC=clang-14 CXX=clang++-14 cmake -G Ninja -S . -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWAVEOPT_SANITIZE=ON -DWAVEOPT_FUZZ=ON -DWAVEOPT_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build "$asan"
echo "test-sanitize: build took $((SECONDS - start)) s"
start=$SECONDS
ctest --test-dir "$asan" --output-on-failure -j"$(nproc)" -E '^(diff|install_and_consume)$' "$@"
echo "test-sanitize: ASan+UBSan tests and fuzzing took $((SECONDS - start)) s"
