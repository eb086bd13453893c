#!/usr/bin/env bash
# Installs every Debian 12 package Loopscape needs to build, test and run (and CI needs:
# clang-format-16 for scripts/check-format.sh; lld, the linker the build uses when it is
# present; GCC's ASan/UBSan runtimes come with build-essential; clang-16, libfuzzer-16-dev
# and libclang-rt-16-dev (clang's ASan/UBSan and libFuzzer runtimes, which
# --no-install-recommends leaves out) for the libFuzzer harnesses, the `fuzz` preset and
# bench/fuzz.sh; libxgboost-dev for the auto-scheduler's cost model; ocl-icd-opencl-dev
# (OpenCL headers and loader) and pocl-opencl-icd (PoCL, an OpenCL platform on the CPU)
# for the opencl target plugin and its tests).
# Idempotent: packages already present are skipped, and `apt-get update` runs at
# most once per machine (a stamp file records it).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git lld
  clang-format-16
  clang-16 libfuzzer-16-dev libclang-rt-16-dev
  qt6-base-dev qt6-base-dev-tools libgl-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libisl-dev
  libxgboost-dev
  llvm-16-dev libzstd-dev
  ocl-icd-opencl-dev pocl-opencl-icd
  libgraphviz-dev qt6-svg-dev qt6-charts-dev libqt6opengl6-dev libxkbcommon-dev
  xvfb xauth
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
stamp=/var/lib/apt/periodic/loopscape-update-stamp
if [ ! -f "$stamp" ]; then
  "${sudo_cmd[@]}" apt-get update
  "${sudo_cmd[@]}" mkdir -p "$(dirname "$stamp")"
  "${sudo_cmd[@]}" touch "$stamp"
fi
echo "install-deps: installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
