#!/usr/bin/env bash
# The main job on the bundled examples: optimize each with -O and show the
# shader before and after (GLSL through SPIRV-Cross) and the remarks.
# With an argument, just that shader. Then the report over examples/:
# source lines, remarks, cost per AMD target and proof (docs/report.md).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVEOPT_BUILD_DIR:-$repo/build}
cd "$repo"
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=(examples/histogram.comp examples/tiled_lighting.comp)

bash scripts/setup.sh
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target waveopt-cli waverun >/dev/null

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

report_inputs=("$@")
[ ${#report_inputs[@]} -gt 0 ] || report_inputs=(examples)
echo "=== report: waveopt-report ${report_inputs[*]} (docs/report.md)"
export PATH="$repo/.deps/current/prefix/bin:$PATH" MESA_SHADER_CACHE_DISABLE=true LP_NUM_THREADS=1
python3 tools/report/waveopt_report.py "${report_inputs[@]}" --bin "$build/bin" -o "$build/report" \
  --cflags="-Iexamples/shader_set/shaders/include"
echo "open file://$build/report/index.html in a browser (also report.json, report.sarif there)"
