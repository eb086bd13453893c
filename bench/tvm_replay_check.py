#!/usr/bin/env python3
"""Replays Loopscape's sample traces in Apache TVM and compares the scheduled programs.

For every samples/traces/*.py: the sample (.te files are valid TVM `te` Python) is built
with te.create_prim_func, our trace is printed as TVM Python by `loopscape-cli print
--format trace-py`, executed on a TVM schedule, and TVM's printed program is compared with
`loopscape-cli print --trace` after normalising spellings that differ between TVM
releases (TVM >= 0.21 spells `tir` as `tirx`, `T.block` as `T.sblock`, and
`get_block` as `get_sblock`). PyPI only carries TVM >= 0.25, so that is what is checked.

Usage: bench/.venv/bin/python bench/tvm_replay_check.py [build/app/cli/loopscape-cli]
Set up: python3 -m venv bench/.venv && bench/.venv/bin/pip install apache-tvm numpy
"""
import pathlib, re, subprocess, sys

import tvm
from tvm import te
import tvm.s_tir as s_tir

if not hasattr(tvm, "tir"):  # TVM >= 0.21 renamed tvm.tir to tvm.tirx
    import tvm.tirx
    tvm.tir = tvm.tirx

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLI = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/app/cli/loopscape-cli")


def build_module(te_file):
    namespace = {"te": te, "tvm": tvm}
    source = te_file.read_text()
    exec(compile(source, str(te_file), "exec"), namespace)
    tensors = [v for v in namespace.values() if isinstance(v, te.Tensor)]
    placeholders = [t for t in tensors if isinstance(t.op, te.PlaceholderOp)]
    # Python wrappers of TVM objects are recreated on access: compare operations by name.
    consumed = {x.op.name for t in tensors if not isinstance(t.op, te.PlaceholderOp) for x in t.op.input_tensors}
    outputs = namespace.get("outputs") or [t for t in tensors
                                           if not isinstance(t.op, te.PlaceholderOp) and t.op.name not in consumed]
    return tvm.IRModule({"main": te.create_prim_func(placeholders + list(outputs))})


def normalise(text):
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "@", "class ", "T.func_attr")):
            continue
        line = line.replace("T.sblock(", "T.block(").replace("T.sblock_alloc_buffer(", "T.alloc_buffer(")
        line = line.replace("tirx", "tir")
        line = re.sub(r"T\.float32\((-?\d+)\.0\)", r"T.float32(\1)", line)
        lines.append(line.strip())
    return lines


def main():
    failures = 0
    for trace in sorted((ROOT / "samples/traces").glob("*.py")):
        sample = ROOT / "samples" / (re.search(r"Applies to samples/(\w+)\.te", trace.read_text()) or
                                     re.search(r"samples/(\w+)\.te", trace.read_text())).group(1)
        sample = sample.with_suffix(".te")
        ours = subprocess.run([CLI, "print", str(sample), "--trace", str(trace), "--dialect", "tirx"],
                              capture_output=True, text=True)
        script = subprocess.run([CLI, "print", str(sample), "--trace", str(trace), "--format", "trace-py"],
                                capture_output=True, text=True)
        if ours.returncode or script.returncode:
            print(f"{trace.name}: loopscape-cli failed: {ours.stderr}{script.stderr}")
            failures += 1
            continue
        try:
            sch = s_tir.Schedule(build_module(sample))
            exec(script.stdout.replace("sch.get_block(", "sch.get_sblock("), {"sch": sch})
            theirs = sch.mod.script()
        except Exception as error:  # a primitive TVM refuses or lacks
            print(f"{trace.name}: TVM refused the trace: {type(error).__name__}: {str(error).splitlines()[-1]}")
            failures += 1
            continue
        a, b = normalise(ours.stdout), normalise(theirs)
        if a == b:
            print(f"{trace.name}: same program as TVM ({len(a)} lines)")
        else:
            failures += 1
            first = next(i for i, (x, y) in enumerate(zip(a + [""], b + [""])) if x != y)
            print(f"{trace.name}: differs from TVM at line {first + 1}:\n  loopscape: {a[first] if first < len(a) else ''}"
                  f"\n  tvm:       {b[first] if first < len(b) else ''}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
