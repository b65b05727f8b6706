#!/usr/bin/env bash
# Packages the build as it is (CPack: waveopt and waveopt-frontends, a
# .tar.gz and a .deb each, stripped; nothing is built again), unpacks the
# waveopt tarball to a prefix, MOVES the prefix, and builds consumers against
# the moved copy only:
#   1. (its size, printed at the end);
#   2. the command line runs from the moved prefix (its mimalloc carried);
#   3. a C program against waveopt::waveopt (the SPIRV-Tools it needs comes
#      from the package);
#   4. with the carried SPIRV-Tools deleted, a project(... LANGUAGES NONE)
#      builds shaders through find_package(waveopt COMPONENTS shaders) and
#      waveopt_add_shaders(), while COMPONENTS library now fails to configure
#      (the negative control: the deletion bites);
#   5. waveopt (again) and waveopt-frontends unpacked over the moved prefix:
#      both together are under 30 MB (du -sb: bytes, 1 MB = 10^6), no file
#      in them names the source, build or dependency directory of the
#      machine that built them, and a frontends consumer builds against them;
#   6. the .debs: their control fields, their files, the command line.
set -euo pipefail
src=$1 build=$2 work=$3 deps=$4
rm -rf "$work" && mkdir -p "$work"
t0=$SECONDS
fail() { echo "package test: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -B "$work/package" > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
t_cpack=$((SECONDS - t0))
pkg=$work/package
tgz=$(echo "$pkg"/waveopt-[0-9]*.tar.gz) fe_tgz=$(echo "$pkg"/waveopt-frontends-[0-9]*.tar.gz)
deb=$(echo "$pkg"/waveopt_*.deb) fe_deb=$(echo "$pkg"/waveopt-frontends_*.deb)
for f in "$tgz" "$fe_tgz" "$deb" "$fe_deb"; do
  test -f "$f" || fail "cpack made no $f (see $work/cpack.log)"
done

mkdir -p "$work/unpacked"
tar -xzf "$tgz" -C "$work/unpacked"
mv "$work/unpacked" "$work/moved"
prefix=$work/moved

# 1. The size of waveopt alone.
bytes=$(du -sb "$prefix" | cut -f1)

# 2. The command line from the moved prefix.
if readelf -d "$prefix/bin/waveopt" | grep -q 'NEEDED.*mimalloc'; then
  used=$(ldd "$prefix/bin/waveopt" | sed -n 's/.*mimalloc[^ ]* => \([^ ]*\) .*/\1/p')
  [ "$(readlink -f "$used")" = "$prefix/lib/waveopt/libmimalloc.so.2" ] ||
    { ldd "$prefix/bin/waveopt"; fail "the command line does not use the mimalloc it carries"; }
fi
"$prefix/bin/waveopt" --target-env=vulkan1.2 "$src/examples/histogram.comp" -o "$work/histogram.spv"

# consumer <dir> [cmake args...]: configures and builds <dir> against the
# moved prefix.
consumer() {
  local dir=$1
  shift
  cmake -G Ninja -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release "$@" > "$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; fail "configuring $dir failed"; }
  cmake --build "$dir/build" > "$dir/build.log" 2>&1 ||
    { cat "$dir/build.log"; fail "building $dir failed"; }
}

# 3. A C program against the library.
mkdir -p "$work/c"
cp "$src/test/install/c_consumer/main.c" "$work/c/"
cat > "$work/c/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(c_consumer LANGUAGES C CXX)
find_package(waveopt REQUIRED COMPONENTS library)
add_executable(c_consumer main.c)
target_link_libraries(c_consumer PRIVATE waveopt::waveopt)
CMAKE
consumer "$work/c"
"$work/c/build/c_consumer" "$work/histogram.spv" "$work/c/out.spv" -O --target-env=vulkan1.2 \
  > "$work/c/log.txt"
grep -q "prereduce-atomics: applied" "$work/c/log.txt" || fail "the C consumer saw no rewrite"
spirv-val --target-env vulkan1.2 "$work/c/out.spv"
c_bytes=$(stat -c %s "$work/c/build/c_consumer")

# 4. Shaders only, without SPIRV-Tools.
rm -r "$prefix"/lib/waveopt/libSPIRV-Tools*.a "$prefix/lib/waveopt/include"
mkdir -p "$work/shaders" "$work/no-library"
cp "$src/examples/histogram.comp" "$work/shaders/"
cat > "$work/shaders/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(shaders LANGUAGES NONE)
find_package(waveopt REQUIRED COMPONENTS shaders)
if(TARGET waveopt::waveopt OR TARGET SPIRV-Tools-opt OR NOT TARGET waveopt::cli)
  message(FATAL_ERROR "the shaders component loaded the library or no command line")
endif()
waveopt_add_shaders(shaders SOURCES histogram.comp FLAGS -O --target-env=vulkan1.1)
CMAKE
consumer "$work/shaders"
spirv-val --target-env vulkan1.1 "$work/shaders/build/shaders/histogram.comp.spv"
sed 's/COMPONENTS shaders/COMPONENTS library/' "$work/shaders/CMakeLists.txt" \
  > "$work/no-library/CMakeLists.txt"
if cmake -S "$work/no-library" -B "$work/no-library/build" -DCMAKE_PREFIX_PATH="$prefix" \
     > "$work/no-library/log.txt" 2>&1; then
  fail "the library configured without its SPIRV-Tools: step 4 proves nothing"
fi

# 5. waveopt again (the SPIRV-Tools deleted in 4) and waveopt-frontends over
#    the moved prefix.
tar -xzf "$tgz" -C "$prefix"
tar -xzf "$fe_tgz" -C "$prefix"
fe_bytes=$(du -sb "$prefix" | cut -f1)
[ "$fe_bytes" -lt 30000000 ] ||
  { du -ab "$prefix" | sort -n | tail; fail "both packages install $fe_bytes bytes (limit 30 MB)"; }
if grep -rl -e "$src" -e "$build" -e "$(readlink -f "$deps")" "$prefix"; then
  fail "these installed files name the build machine's directories"
fi
mkdir -p "$work/frontends"
cp "$src/test/install/frontends/main.cpp" "$src/test/install/frontends/CMakeLists.txt" \
  "$work/frontends/"
consumer "$work/frontends"
"$work/frontends/build/frontends" > "$work/frontends/out.glsl"
grep -q "subgroupAdd\|subgroupBallot\|subgroupElect" "$work/frontends/out.glsl" ||
  fail "the frontends consumer printed no subgroup operation"

# 6. The .debs.
dpkg-deb -f "$deb" Depends | grep -q "libc6" || fail "the waveopt .deb has no Depends"
dpkg-deb -f "$fe_deb" Depends | grep -q "^waveopt (= " ||
  fail "waveopt-frontends does not depend on waveopt"
dpkg-deb -c "$deb" > "$work/deb-files.txt"
for f in ./usr/bin/waveopt ./usr/lib/cmake/waveopt/waveoptConfig.cmake \
         ./usr/include/waveopt/waveopt.h ./usr/lib/waveopt/libSPIRV-Tools-opt.a \
         ./usr/lib/waveopt/libwaveopt_frontends.so; do
  grep -q " $f\$" "$work/deb-files.txt" || fail "the .deb has no $f"
done
dpkg-deb -x "$deb" "$work/deb-root"
"$work/deb-root/usr/bin/waveopt" --version > /dev/null

echo "package test: $(basename "$tgz") moved and consumed: install $bytes bytes" \
  "($fe_bytes with frontends, limit 30000000), C program $c_bytes bytes;" \
  "cpack ${t_cpack} s, all $((SECONDS - t0)) s"
