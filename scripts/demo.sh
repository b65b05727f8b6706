#!/usr/bin/env bash
# The main job on the bundled examples: optimize each with -O and show the
# shader before and after (GLSL through SPIRV-Cross) and the remarks.
# With an argument, just that shader.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVEOPT_BUILD_DIR:-$repo/build}
cd "$repo"
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=(examples/histogram.comp examples/tiled_lighting.comp)

bash scripts/setup.sh
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target waveopt-cli >/dev/null

for example in "${examples[@]}"; do
  echo "=== before: $example"
  cat "$example"
  echo
  echo "=== remarks: waveopt -O $example"
  "$build/bin/waveopt" -O "$example" --emit=glsl -o "$build/demo.after.comp" \
    --remarks='.*' --remarks-missed='.*' --remarks-analysis='.*' --time-report \
    --print-spec-constants > "$build/demo.versions.txt"
  echo
  echo "=== versions: set the device's SpecId true at pipeline creation (docs/targets.md)"
  if [ -s "$build/demo.versions.txt" ]; then cat "$build/demo.versions.txt"; else echo "(none: one module for every GPU)"; fi
  echo
  echo "=== after (GLSL through SPIRV-Cross)"
  cat "$build/demo.after.comp"
  echo
done
