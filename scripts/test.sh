#!/usr/bin/env bash
# The whole test suite from a fresh Debian bookworm machine, as root:
# installs dependencies (scripts/setup.sh), configures, builds, runs the unit,
# lit and differential tests. Extra arguments go to ctest.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVEOPT_BUILD_DIR:-$repo/build}
cd "$repo"

bash scripts/setup.sh
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build"
export MESA_SHADER_CACHE_DISABLE=true LP_NUM_THREADS=1
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@"
