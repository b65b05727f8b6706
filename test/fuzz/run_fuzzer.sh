#!/usr/bin/env bash
# Runs one libFuzzer target for ctest or by hand.
#
#   run_fuzzer.sh replay <fuzzer> <workdir> <input dir>...
#       executes every file in the input dirs once (missing dirs are skipped);
#       fails on the first crash, leak or abort.
#   run_fuzzer.sh fuzz <fuzzer> <workdir> <seconds> <seed dir>...
#       fuzzes for <seconds> from a fresh copy of the seeds in <workdir>/corpus
#       (new inputs land there, not in the seeds); crash inputs are written to
#       <workdir>/crash-* and the run fails. Prints libFuzzer's final stats.
#   run_fuzzer.sh long <fuzzer> <workdir> <seconds> <seed dir>...
#       the same, but <workdir>/corpus is kept between runs (seeds are added),
#       so long runs build on each other (scripts/fuzz.sh).
#
# Leak detection is off: glslang and SPIRV-Tools keep process-lifetime tables.
set -euo pipefail
mode=$1 fuzzer=$2 work=$3
shift 3
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$work"
common=(-rss_limit_mb=4096 -timeout=60 -artifact_prefix="$work/" -print_final_stats=1)

case $mode in
  replay)
    inputs=()
    for d in "$@"; do
      [ -d "$d" ] || continue
      while IFS= read -r -d '' f; do inputs+=("$f"); done \
        < <(find "$d" -type f ! -name '*.md' ! -name stamp -print0 | sort -z)
    done
    [ ${#inputs[@]} -gt 0 ] || { echo "run_fuzzer: no inputs in $*" >&2; exit 1; }
    echo "replaying ${#inputs[@]} inputs"
    exec "$fuzzer" "${common[@]}" -runs=1 "${inputs[@]}"
    ;;
  fuzz|long)
    seconds=$1
    shift
    [ "$mode" = long ] || rm -rf "$work/corpus"
    mkdir -p "$work/corpus"
    for d in "$@"; do
      if [ -d "$d" ]; then cp -r "$d/." "$work/corpus/"; fi
    done
    rm -f "$work/corpus/stamp"
    find "$work/corpus" -name "*.md" -delete  # the regression dirs' READMEs
    exec "$fuzzer" "${common[@]}" -max_total_time="$seconds" -max_len=65536 \
      "$work/corpus"
    ;;
  *)
    echo "usage: run_fuzzer.sh replay|fuzz|long <fuzzer> <workdir> ..." >&2
    exit 2
    ;;
esac
