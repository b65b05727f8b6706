#!/usr/bin/env bash
# Runs the benchmarks and regenerates docs/benchmarks.md (and
# docs/benchmarks-scaling.png when gnuplot is installed).
#   bash test/bench/run.sh                     # build/ (or $WAVEOPT_BUILD)
#   bash test/bench/run.sh --build build-bench # another build directory
#   bash test/bench/run.sh --smoke             # tiny sizes, 1 rep, no doc
# Needs bin/waveopt and bin/waverun in the build directory:
#   cmake -G Ninja -S . -B build && ninja -C build waveopt-cli waverun
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/bench.py" "$@"
