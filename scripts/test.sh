#!/usr/bin/env bash
# The whole test suite from a fresh Debian bookworm machine, as root:
# installs dependencies (scripts/setup.sh), configures, builds, runs the unit,
# lit and differential tests. Extra arguments go to ctest.
#
# Debug information is line tables only (-g1): backtraces, sanitizer reports
# and callgrind keep their file:line, and the build takes a third less time
# than with -g (CI time, docs/robustness.md).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVEOPT_BUILD_DIR:-$repo/build}
cd "$repo"

bash scripts/setup.sh
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
cmake --build "$build"
export MESA_SHADER_CACHE_DISABLE=true LP_NUM_THREADS=1
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@"
