#!/usr/bin/env bash
# Quick start, first command: installs the dependencies, builds, and starts the main job.
# Until the desktop workbench lands (issue #6), and on machines without a display, the
# main job is the command line: print samples/matmul.te as TensorIR, then run the reference
# interpreter on the dynamic-batch dense sample with the batch bound to 64 and print the
# checksum of its output.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cli=build/app/cli/loopscape-cli
echo "== loopscape-cli print samples/matmul.te"
"$cli" print samples/matmul.te
echo
echo "== loopscape-cli check samples/dense_dynamic.te --shape n=64 --seed 1"
"$cli" check samples/dense_dynamic.te --shape n=64 --seed 1
