#!/usr/bin/env bash
# Installs everything waveopt needs on a fresh Debian bookworm machine, as root.
# Idempotent: a second run installs nothing new and re-fetches nothing.
#
# Contract:
#   - every dependency comes from Debian: bookworm's binary packages, and
#     SPIRV-Headers, SPIRV-Tools and glslang built from trixie's source
#     packages by scripts/deps.sh (pinned versions, hash- and
#     signature-checked, cached per machine; <repo>/.deps/current points at
#     the build) — bookworm's own spirv-tools/glslang are not used;
#   - the archive's address is derived from the machine's own apt entries
#     (no archive host is ever written into this repository);
#   - `--bench` also installs what test/bench/run.sh uses beyond the build
#     (valgrind for instruction counts, gnuplot for the scaling plot).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)

log() { printf 'setup: %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

packages=(
  build-essential cmake ninja-build pkg-config python3 dpkg-dev
  debian-archive-keyring
  spirv-cross libspirv-cross-c-shared-dev
  llvm-14-dev llvm-14-tools libgtest-dev
  libvulkan-dev mesa-vulkan-drivers vulkan-tools
  clang-14 libclang-rt-14-dev
  clang-format-14  # test/tools/check_format.sh
  libmimalloc-dev
  bubblewrap  # test/farm/hermetic.sh's sandbox
  chromium  # test/report: the report's browser test (waveopt-report)
)
if [ "${1:-}" = "--bench" ]; then
  packages+=(valgrind gnuplot-nox)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get update"
  $SUDO apt-get update -qq
  log "installing: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# lit: llvm-14-tools ships lit.py under /usr/lib/llvm-14/build/utils/lit.
# SPIRV-Headers, SPIRV-Tools, glslang of today (first run: ~10 minutes).
bash "$repo/scripts/deps.sh"
