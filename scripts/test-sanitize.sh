#!/usr/bin/env bash
# The sanitizer half of CI (docs/robustness.md), after scripts/test.sh: one
# build, build-asan, of the whole project with clang-14,
# -DWAVEOPT_SANITIZE=ON (ASan+UBSan) and -DWAVEOPT_FUZZ=ON (the library
# also gets libFuzzer's coverage, and the two fuzz targets are built). Its
# ctest runs the unit and lit tests under the sanitizers (less what
# LIT_FILTER_OUT names below), and fuzzes each target for
# WAVEOPT_FUZZ_SECONDS (default 30) seconds after running every seed (the
# test shaders) and committed regression input once.
#
# Left out: the differential suite (`diff`), which runs every shader on
# lavapipe, whose LLVM JIT is not instrumented, so under ASan it only gets
# several times slower while checking the same waveopt/waverun code the lit
# suite already runs under ASan (test/lit/waverun runs waverun on lavapipe);
# and install_and_consume, which builds a consumer without sanitizers
# against the installed (instrumented) archive, which cannot link; it tests
# packaging, which the normal build already does; and report_browser, whose
# waverun diff --auto runs are the differential suite's lavapipe work again
# (its Python and HTML have no native code to sanitize).
# Extra arguments go to ctest.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
asan=${WAVEOPT_ASAN_BUILD_DIR:-$repo/build-asan}
seconds=${WAVEOPT_FUZZ_SECONDS:-30}
cd "$repo"

bash scripts/setup.sh
export MESA_SHADER_CACHE_DISABLE=true LP_NUM_THREADS=1
# What runs under the sanitizers is the product: the waveopt library and
# CLI (every pass's lit tests, the CLI's, the robustness tests, the fuzz
# targets) and waverun's bad-input tests. Left out, because they ran
# unsanitized moments ago and under ASan cost more than the rest together
# (CI time, docs/robustness.md):
# - robustness/sweeps.test and many_functions.test: thousands of waveopt
#   runs, each paying ASan's start-up (~0.25 s, ten times an unsanitized
#   -O on a test shader); glibc's malloc variables (determinism) do nothing
#   under ASan; the fuzz targets run -O over every test shader here anyway
#   (their seeds).
# - robustness/reemit.test: SPIRV-Cross and glslang taking the rewrites
#   back to GLSL/HLSL, ~340 runs of waveopt; what it checks is the tools'
#   output, not memory safety, and it ran unsanitized moments ago.
# - waverun's and the simulator's functional tests (test/lit/waverun, sim):
#   test infrastructure whose time goes to lavapipe's and ACO's
#   uninstrumented code; waverun's errors and robustness tests stay.
# - bench_smoke and amd_occupancy: lavapipe and ACO again (see above), and
#   diff/install_and_consume (header).
export LIT_FILTER_OUT=':: (robustness/(sweeps|many_functions|reemit)\.test|sim/|waverun/(?!errors\.test|robustness\.test))'
# Leaks: glslang, SPIRV-Tools and Mesa keep process-lifetime tables, and the
# CLI leaves through exit() on its error paths; everything else is reported
# and fatal.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

start=$SECONDS
# Line tables only (-g1), as scripts/test.sh: reports keep file:line.
CC=clang-14 CXX=clang++-14 cmake -G Ninja -S . -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DWAVEOPT_SANITIZE=ON -DWAVEOPT_FUZZ=ON -DWAVEOPT_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build "$asan"
echo "test-sanitize: build took $((SECONDS - start)) s"
start=$SECONDS
ctest --test-dir "$asan" --output-on-failure -j"$(nproc)" -E '^(diff|install_and_consume|package_relocated|farm_incremental|report_browser|bench_smoke|amd_occupancy.*)$' "$@"
echo "test-sanitize: ASan+UBSan tests and fuzzing took $((SECONDS - start)) s"

# Same input -> same bytes whichever compiler built waveopt: scripts/test.sh's
# gcc build against this clang one, -O over every test shader (C++ leaves the
# order of evaluating function arguments to the compiler; an emitter call in
# two arguments of one call numbers its ids differently under gcc and clang).
gcc_build=${WAVEOPT_BUILD_DIR:-$repo/build}
if [ -x "$gcc_build/bin/waveopt" ]; then
  start=$SECONDS
  python3 test/robustness/cross_compiler.py --only-O --a "$gcc_build/bin/waveopt" \
    --b "$asan/bin/waveopt" --src "$repo" --tmp "$asan/cross-compiler"
  echo "test-sanitize: gcc/clang output comparison took $((SECONDS - start)) s"
else
  echo "test-sanitize: no gcc build at $gcc_build (run scripts/test.sh first): gcc/clang output comparison skipped"
fi
