#!/usr/bin/env bash
# Installs waveopt from the build tree into a scratch prefix, then configures,
# builds and runs a consumer project whose main() is the example in
# docs/library.md, against the installed package only.
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work/consumer"
cmake --install "$build" --prefix "$work/prefix" >/dev/null

# The example is the fenced block between the example markers.
awk '/<!-- example:begin -->/{on=1; next} /<!-- example:end -->/{on=0} on && !/^```/' \
  "$src/docs/library.md" > "$work/consumer/main.cpp"
test -s "$work/consumer/main.cpp"
cat > "$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES C CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(waveopt REQUIRED)
add_executable(consumer main.cpp)
target_compile_options(consumer PRIVATE -Wall -Wextra -Werror)
target_link_libraries(consumer PRIVATE waveopt::waveopt)
CMAKE
cmake -G Ninja -S "$work/consumer" -B "$work/consumer/build" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer/build" >/dev/null
"$build/bin/waveopt" "$src/examples/histogram.comp" -o "$work/in.spv"
"$work/consumer/build/consumer" "$work/in.spv" "$work/out.spv" | tee "$work/log.txt"
grep -q '^waveopt [0-9.]*: [0-9]* passes' "$work/log.txt"
spirv-val --target-env vulkan1.1 "$work/out.spv"
echo "install test: consumer built against $work/prefix and ran"
