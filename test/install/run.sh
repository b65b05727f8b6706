#!/usr/bin/env bash
# Installs waveopt into a scratch prefix, then configures, builds and runs
# consumers against the installed package only (docs/library.md):
#   1. the package files name nothing private (LLVM, glslang, SPIRV-Cross,
#      mimalloc) for waveopt::waveopt;
#   2. docs/library.md's example, in a project(... LANGUAGES CXX), on
#      modules for vulkan1.0 to vulkan1.3, its link line free of them too;
#   3. an engine-like program (engine/engine.cpp: its own mutex-protected
#      operator new, a second allocating thread, fork() counted, -fno-exceptions
#      -fno-rtti, Optimize() and its own Optimizer, two threads at once) and
#      the public headers at C++14 and C++20 under -Wpedantic -Werror;
#   4. a C program on waveopt_c.h;
#   5. the frontends component;
#   6. a project whose SPIRV-Tools is another version: configuration stops.
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
# --strip, as users install and as the package is made: the archives are
# merged (docs/library.md, "The package"), and the consumers link those.
cmake --install "$build" --prefix "$prefix" --strip >/dev/null
waveopt=$prefix/bin/waveopt
private='LLVM|z3|tinfo|glslang|spirv-cross|spirv_cross|mimalloc'

fail() { echo "install test: $*" >&2; exit 1; }

# 1. The engine library's package files.
for f in "$prefix"/lib/cmake/waveopt/waveoptTargets*.cmake; do
  if grep -nE "$private" "$f"; then fail "$f names a private dependency"; fi
done

# Modules as front ends emit them for each Vulkan version (SPIR-V 1.0, 1.3,
# 1.5, 1.6), through the installed command line.
envs="vulkan1.0 vulkan1.1 vulkan1.2 vulkan1.3"
for env in $envs; do
  "$waveopt" --target-env=$env "$src/examples/histogram.comp" -o "$work/histogram.$env.spv"
  "$waveopt" --target-env=$env "$src/examples/tiled_lighting.comp" -o "$work/lights.$env.spv"
done

# consumer <dir> [cmake args...]: configures and builds the project in <dir>
# against the prefix; the verbose build log is <dir>/build.log.
consumer() {
  local dir=$1
  shift
  cmake -G Ninja -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release "$@" > "$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; fail "configuring $dir failed"; }
  cmake --build "$dir/build" -v > "$dir/build.log" 2>&1 ||
    { cat "$dir/build.log"; fail "building $dir failed"; }
}

# 2. The documented example, extracted from docs/library.md.
mkdir -p "$work/example"
awk '/<!-- example:begin -->/{on=1; next} /<!-- example:end -->/{on=0} on && !/^```/' \
  "$src/docs/library.md" > "$work/example/main.cpp"
test -s "$work/example/main.cpp"
cat > "$work/example/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(waveopt REQUIRED)
add_executable(consumer main.cpp)
target_compile_options(consumer PRIVATE -Wall -Wextra -Werror)
target_link_libraries(consumer PRIVATE waveopt::waveopt)
CMAKE
consumer "$work/example"
if grep -E "\-o consumer " "$work/example/build.log" | grep -E "$private"; then
  fail "the example's link line names a private dependency"
fi
for env in $envs; do
  out=$work/example/histogram.$env.out.spv
  "$work/example/build/consumer" "$work/histogram.$env.spv" "$out" > "$work/example/$env.log"
  spirv-val --target-env $env "$out"
  grep -q "^waveopt [0-9.]*: $env, [0-9]* -> [0-9]* words" "$work/example/$env.log" ||
    fail "the example printed no summary for $env"
  if [ $env = vulkan1.0 ]; then
    grep -q "missed TargetLacksSubgroupOps" "$work/example/$env.log" || fail "no refusal for vulkan1.0"
  else
    grep -q "applied SmallBinSet" "$work/example/$env.log" || fail "no rewrite for $env"
  fi
  "$work/example/build/consumer" "$work/lights.$env.spv" "$out" > "$work/example/lights.$env.log"
  spirv-val --target-env $env "$out"
  # The loop rewrite after the engine's performance passes (from SPIR-V 1.5
  # on, batch-uniform-loads' cost rule keeps that module's loop as it is).
  [ $env != vulkan1.1 ] || grep -q "applied BatchedLoads" "$work/example/lights.$env.log" ||
    fail "the loop was not rewritten for $env after the performance passes"
done
# A SPIR-V 1.0 module for a Vulkan 1.1 device: raised to 1.3.
"$work/example/build/consumer" "$work/histogram.vulkan1.0.spv" "$work/example/raised.spv" vulkan1.1 \
  > "$work/example/raised.log"
grep -q "applied RaisedSpirvVersion: the module's SPIR-V version was raised from 1.0 to 1.3" \
  "$work/example/raised.log" || fail "the 1.0 module was not raised for vulkan1.1"
spirv-val --target-env vulkan1.1 "$work/example/raised.spv"

# 3. The engine-like consumer and the headers under strict settings.
mkdir -p "$work/engine"
cp "$src/test/install/engine/engine.cpp" "$src/test/install/engine/headers.cpp" "$work/engine/"
cat > "$work/engine/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(engine LANGUAGES CXX)
find_package(Threads REQUIRED)
find_package(waveopt REQUIRED)
set(strict -Wall -Wextra -Werror -fno-exceptions -fno-rtti)
add_executable(engine engine.cpp)
set_target_properties(engine PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
target_compile_options(engine PRIVATE ${strict})
target_link_libraries(engine PRIVATE waveopt::waveopt Threads::Threads)
foreach(std 14 20)
  add_executable(headers${std} headers.cpp)
  set_target_properties(headers${std} PROPERTIES CXX_STANDARD ${std} CXX_STANDARD_REQUIRED ON
                                                 CXX_EXTENSIONS OFF)
  target_compile_options(headers${std} PRIVATE ${strict} -Wpedantic)
  target_link_libraries(headers${std} PRIVATE waveopt::waveopt)
endforeach()
CMAKE
consumer "$work/engine"
modules=""
for env in $envs; do modules="$modules $work/histogram.$env.spv $work/lights.$env.spv"; done
# A deadlock (the old fork with this allocator) ends at the timeout.
timeout 300 "$work/engine/build/engine" $modules | tee "$work/engine/log.txt" ||
  fail "the engine-like consumer failed (exit $?; 124: it hung)"
grep -q "^engine: ok, [0-9]* allocations through the engine's allocator, 0 forks" "$work/engine/log.txt"
"$work/engine/build/headers14" && "$work/engine/build/headers20"

# 4. The C API from C.
mkdir -p "$work/c"
cp "$src/test/install/c_consumer/main.c" "$work/c/"
cat > "$work/c/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(c_consumer LANGUAGES C CXX)
find_package(waveopt REQUIRED)
add_executable(c_consumer main.c)
set_target_properties(c_consumer PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(c_consumer PRIVATE -Wall -Wextra -pedantic -Werror)
target_link_libraries(c_consumer PRIVATE waveopt::waveopt)
CMAKE
consumer "$work/c"
"$work/c/build/c_consumer" "$work/histogram.vulkan1.2.spv" "$work/c/out.spv" -O \
  --target-env=vulkan1.2 --pass-params=prereduce-atomics:max-bins=16 > "$work/c/log.txt"
grep -q "prereduce-atomics: applied SmallBinSet" "$work/c/log.txt" || fail "the C consumer saw no rewrite"
grep -q "^c_consumer: waveopt " "$work/c/log.txt"
spirv-val --target-env vulkan1.2 "$work/c/out.spv"
if "$work/c/build/c_consumer" "$work/histogram.vulkan1.2.spv" "$work/c/bad.spv" --bogus 2> "$work/c/err.txt"; then
  fail "the C consumer accepted --bogus"
fi
grep -qx "error: unknown flag --bogus" "$work/c/err.txt"

# 5. The frontends component.
mkdir -p "$work/frontends"
cp "$src/test/install/frontends/main.cpp" "$src/test/install/frontends/CMakeLists.txt" \
  "$work/frontends/"
consumer "$work/frontends"
"$work/frontends/build/frontends" > "$work/frontends/out.glsl"
grep -q "subgroupAdd\|subgroupBallot\|subgroupElect" "$work/frontends/out.glsl"

# 6. A SPIRV-Tools of another version: configuration stops with the reason.
fake=$work/fake-spirv-tools
mkdir -p "$fake/lib/cmake/SPIRV-Tools" "$fake/lib/cmake/SPIRV-Tools-opt" "$work/mismatch"
printf 'SPIRV-Tools v2023.1 v2023.1.rc1\0' > "$fake/lib/libSPIRV-Tools.a"
cat > "$fake/lib/cmake/SPIRV-Tools/SPIRV-ToolsConfig.cmake" <<'CMAKE'
add_library(SPIRV-Tools-static STATIC IMPORTED)
set_target_properties(SPIRV-Tools-static PROPERTIES
  IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../libSPIRV-Tools.a")
CMAKE
cat > "$fake/lib/cmake/SPIRV-Tools-opt/SPIRV-Tools-optConfig.cmake" <<'CMAKE'
add_library(SPIRV-Tools-opt STATIC IMPORTED)
set_target_properties(SPIRV-Tools-opt PROPERTIES
  IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../libSPIRV-Tools.a")
CMAKE
cat > "$work/mismatch/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(mismatch LANGUAGES CXX)
find_package(waveopt REQUIRED)
CMAKE
if cmake -S "$work/mismatch" -B "$work/mismatch/build" -DCMAKE_PREFIX_PATH="$prefix" \
     -DSPIRV-Tools_DIR="$fake/lib/cmake/SPIRV-Tools" \
     -DSPIRV-Tools-opt_DIR="$fake/lib/cmake/SPIRV-Tools-opt" > "$work/mismatch/log.txt" 2>&1; then
  fail "a project with SPIRV-Tools v2023.1 configured against waveopt"
fi
tr -s ' \n' ' ' < "$work/mismatch/log.txt" |
  grep -q "was built against SPIRV-Tools v[0-9.]* and uses its internal optimizer headers, but the SPIRV-Tools this project links ($fake/lib/libSPIRV-Tools.a) is v2023.1" ||
  { cat "$work/mismatch/log.txt"; fail "no clear message for a SPIRV-Tools of another version"; }

echo "install test: every consumer built against $prefix and ran"
