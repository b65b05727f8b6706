#!/usr/bin/env bash
# Runs the benchmarks and regenerates docs/benchmarks.md (with its data in
# docs/data/, and docs/benchmarks-scaling.png).
#   bash test/bench/run.sh                     # build/ (or $WAVEOPT_BUILD)
#   bash test/bench/run.sh --build build-bench # another build directory
#   bash test/bench/run.sh --smoke             # tiny sizes, 1 rep, no doc
# Installs its Debian packages first (scripts/setup.sh --bench: the build's,
# plus valgrind and gnuplot) and builds bin/waveopt and bin/waverun in the
# build directory when they are missing or stale.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${WAVEOPT_BUILD:-$repo/build}
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --build) [ $((i + 1)) -lt ${#args[@]} ] && build=${args[$((i + 1))]} ;;
    --build=*) build=${args[$i]#--build=} ;;
  esac
done
bash "$repo/scripts/setup.sh" --bench
cmake -G Ninja -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target waveopt-cli waverun
exec python3 "$here/bench.py" "$@"
