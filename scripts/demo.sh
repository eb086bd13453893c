#!/usr/bin/env bash
# Quick start, first command: installs the dependencies, builds, and starts the main job.
# With a display ($DISPLAY or $WAYLAND_DISPLAY set) the main job is the desktop workbench
# on samples/matmul.te. Without one it is the command line: print samples/matmul.te as
# TensorIR, run the reference interpreter on the dynamic-batch dense sample with the batch
# bound to 64 and print the checksum of its output, and render the workbench to
# build/matmul-workbench.png (offscreen) to show what the GUI looks like.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
gui=build/app/gui/loopscape
if [[ -x "$gui" && ( -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ) ]]; then
  echo "== loopscape samples/matmul.te (try: Schedule menu, or samples/traces/matmul_tile.py via File > Load trace)"
  exec "$gui" samples/matmul.te
fi
cli=build/app/cli/loopscape-cli
echo "== loopscape-cli print samples/matmul.te"
"$cli" print samples/matmul.te
echo
echo "== loopscape-cli check samples/dense_dynamic.te --shape n=64 --seed 1"
"$cli" check samples/dense_dynamic.te --shape n=64 --seed 1
if [[ -x "$gui" ]]; then
  echo
  echo "== loopscape samples/matmul.te --trace samples/traces/matmul_tile.py --screenshot build/matmul-workbench.png"
  "$gui" samples/matmul.te --trace samples/traces/matmul_tile.py --select i_0 --raise code \
    --screenshot build/matmul-workbench.png
fi
