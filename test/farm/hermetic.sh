#!/usr/bin/env bash
# A hermetic run: in an unprivileged bubblewrap sandbox (a user namespace,
# no network, the whole file system read-only but one output directory, an
# empty environment, inputs read-only), waveopt -O with -MD and
# --remarks-output, and --batch, write exactly their outputs, byte-identical
# to a run outside. Skips (77) with the reason when bubblewrap is missing or
# the kernel refuses user namespaces.
# Usage: hermetic.sh <waveopt> <source root> <work>
set -euo pipefail
waveopt=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/in" "$work/out" "$work/ref"
fail() { echo "hermetic: $*" >&2; exit 1; }
skip() { echo "hermetic: SKIPPED: $*"; exit 77; }

command -v bwrap > /dev/null || skip "bwrap not found (Debian: bubblewrap; scripts/setup.sh installs it)"
sandbox=(bwrap --unshare-all --unshare-user --uid 65534 --gid 65534 --die-with-parent
         --ro-bind / / --dev /dev --proc /proc --bind "$work/out" "$work/out"
         --chdir "$work/in" --clearenv)
if ! why=$("${sandbox[@]}" true 2>&1); then
  skip "bwrap cannot make a sandbox here (user namespaces refused by the kernel?): $why"
fi

cp -r "$src/test/farm/consumer/shaders/." "$work/in/"
printf 'count.comp -DWIDE -DBINS=8 -Iinclude\npixel.hlsl -S frag -e PSMain\n' > "$work/in/list.txt"
chmod -R a-w "$work/in"
# The sandbox holds: nothing outside the output directory is writable.
for f in "$work/in/new" /tmp/waveopt-hermetic-probe "${HOME:-/root}/probe"; do
  if "${sandbox[@]}" sh -c "echo x > '$f'" 2> /dev/null; then fail "the sandbox let $f be written"; fi
done

one=(-O count.comp -DWIDE -DBINS=8 -Iinclude --target-env=vulkan1.1)
"${sandbox[@]}" "$waveopt" "${one[@]}" -o "$work/out/count.spv" -MD \
  --remarks-output="$work/out/count.yaml" || fail "the sandboxed run failed"
"${sandbox[@]}" "$waveopt" -O --batch list.txt --out-dir "$work/out/batch" -MD --jobs 2 ||
  fail "the sandboxed --batch failed"
(cd "$work/in" && "$waveopt" "${one[@]}" -o "$work/ref/count.spv" &&
  "$waveopt" -O --batch list.txt --out-dir "$work/ref/batch")

written=$(cd "$work/out" && find . -mindepth 1 | sort | tr '\n' ' ')
want="./batch ./batch/count.comp.spv ./batch/count.comp.spv.d ./batch/pixel.hlsl.spv ./batch/pixel.hlsl.spv.d ./count.spv ./count.spv.d ./count.yaml "
[ "$written" = "$want" ] || fail "wrote '$written', expected '$want'"
cmp "$work/out/count.spv" "$work/ref/count.spv"
cmp "$work/out/batch/count.comp.spv" "$work/ref/batch/count.comp.spv"
cmp "$work/out/batch/pixel.hlsl.spv" "$work/ref/batch/pixel.hlsl.spv"
echo "hermetic: sandboxed runs wrote exactly their outputs, identical to unsandboxed ones"
