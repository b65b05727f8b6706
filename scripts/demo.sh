#!/usr/bin/env bash
# The main job on a bundled example: optimize examples/histogram.comp with -O,
# show the shader before and after (as GLSL) and the remarks.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${WAVEOPT_BUILD_DIR:-$repo/build}
cd "$repo"
example=${1:-examples/histogram.comp}

bash scripts/setup.sh
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target waveopt-cli >/dev/null

echo "=== before: $example"
cat "$example"
echo
echo "=== remarks: waveopt -O $example"
"$build/bin/waveopt" -O "$example" --emit=glsl -o "$build/demo.after.comp" \
  --remarks='.*' --remarks-missed='.*' --remarks-analysis='.*' --time-report
echo
echo "=== after (GLSL through SPIRV-Cross)"
cat "$build/demo.after.comp"
