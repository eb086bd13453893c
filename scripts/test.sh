#!/usr/bin/env bash
# Quick start, second command: installs the dependencies, builds, and runs the whole test
# suite with CTest (this is what .ci/run calls).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)"
