#!/bin/bash
# The benchmark kernels on a real Vulkan GPU: equality (naive vs hand, naive
# vs waveopt -O, `waverun diff` at the device's own subgroup size) and time
# (`waverun time`, two rounds in rotated order). Results go to docs/
# benchmarks-gpu.md by hand, with the device and commit they came from.
#
# Usage: bash test/bench/gpu_check.sh [OUT_DIR]
#   BENCH=build/bench  the .spv of each kernel (naive, hand, waveopt), as
#                      `python3 test/bench/bench.py --only-amd` leaves them
#   WAVERUN=build/bin/waverun
#   ICD=FILE           a Vulkan ICD manifest; default: the loader's search,
#                      except on a headless NVIDIA machine, where the
#                      driver's EGL library is the ICD that initializes
#                      without a display (its GLX one fails vkCreateInstance)
#   REPS=10            timed repetitions per version and round
# Kernels whose per-rep input fill and output check take longer than the
# per-call limit on the host CPU (TIME_LIMIT, 25 s) get no time row.
set -u
OUT=${1:-${OUT:-/tmp/gpu-check}}
BENCH=${BENCH:-build/bench}
WAVERUN=${WAVERUN:-build/bin/waverun}
REPS=${REPS:-10}
TIME_LIMIT=${TIME_LIMIT:-25}
mkdir -p "$OUT"
if [ -n "${ICD:-}" ]; then
  DEV="--icd=$ICD"
elif [ -e /usr/local/nvidia/lib64/libEGL_nvidia.so.0 ]; then
  printf '{"file_format_version":"1.0.1","ICD":{"library_path":"%s","api_version":"1.3.0"}}\n' \
    /usr/local/nvidia/lib64/libEGL_nvidia.so.0 > "$OUT/nvidia_egl_icd.json"
  export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/nvidia/lib64
  DEV="--icd=$OUT/nvidia_egl_icd.json"
else
  DEV="--system-icds"
fi
"$WAVERUN" probe $DEV > "$OUT/probe.txt" 2>&1 || { cat "$OUT/probe.txt"; exit 1; }
if grep -q llvmpipe "$OUT/probe.txt"; then
  echo "gpu_check: the device is lavapipe, not a GPU" >&2; exit 1
fi
cat "$OUT/probe.txt"
: > "$OUT/diff.txt"; : > "$OUT/time.txt"
for dir in "$BENCH"/*/; do
  k=$(basename "$dir")
  [ -f "$dir/naive.spv" ] || continue
  spec="--spec=test/bench/kernels/$k/naive.waverun"
  for v in hand waveopt; do
    timeout 60 "$WAVERUN" diff "$dir/naive.spv" "$dir/$v.spv" $DEV $spec --no-race-check \
      >> "$OUT/diff.txt" 2>&1
    echo "$k naive vs $v: exit $?" >> "$OUT/diff.txt"
  done
  for order in "naive hand waveopt" "waveopt naive hand"; do
    set -- $order
    echo "== $k: $order" >> "$OUT/time.txt"
    timeout "$TIME_LIMIT" "$WAVERUN" time "$dir/$1.spv" "$dir/$2.spv" "$dir/$3.spv" $DEV $spec \
      --reps="$REPS" >> "$OUT/time.txt" 2>&1 || echo "(exit $?)" >> "$OUT/time.txt"
  done
done
grep ": exit" "$OUT/diff.txt"
