#!/usr/bin/env bash
# Installs the libraries the codegen benchmark (bench/, CMake option LOOPSCAPE_BENCH)
# compares against: OpenBLAS (cblas_sgemm) and oneDNN (convolution).
# Idempotent: packages already present are skipped, and `apt-get update` runs at most
# once per machine (the same stamp file as scripts/install-deps.sh).
set -euo pipefail

packages=(libopenblas-dev libdnnl-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-bench-deps: all ${#packages[@]} packages present"
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
echo "install-bench-deps: installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
