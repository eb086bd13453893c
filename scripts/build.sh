#!/usr/bin/env bash
# Configures and builds Loopscape into build/ (Ninja, RelWithDebInfo, ccache when present).
# Extra arguments go to CMake, e.g. scripts/build.sh -DLOOPSCAPE_GUI=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja "$@"
cmake --build build
