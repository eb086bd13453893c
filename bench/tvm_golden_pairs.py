#!/usr/bin/env python3
"""Writes what Apache TVM makes of the schedule golden pairs in tests/cli/data/tvm_pairs/.

Each folder there holds a program (before.py, TVMScript in TVM 0.27's tirx dialect) and a
schedule (trace.py, TVM Python). This script applies the schedule with TVM and writes
TVM's result next to them: expected.py (the scheduled module as TVM prints it) when TVM
accepts every call, expected-error.txt (the error's last line) when it refuses one. The
test suite (cli.cli_tvm_pairs) then checks, without TVM, that Loopscape gives a
structurally equal program or refuses as well. Run it again after editing a pair.

Usage: bench/.venv/bin/python bench/tvm_golden_pairs.py [PAIR ...]
Set up: python3 -m venv bench/.venv && bench/.venv/bin/pip install apache-tvm
"""
import pathlib
import sys

import tvm
import tvm.s_tir as s_tir

PAIRS = pathlib.Path(__file__).resolve().parent.parent / "tests/cli/data/tvm_pairs"


def main():
    names = sys.argv[1:] or sorted(p.name for p in PAIRS.iterdir() if p.is_dir())
    for name in names:
        folder = PAIRS / name
        func = tvm.script.from_source((folder / "before.py").read_text())
        sch = s_tir.Schedule(func)
        script = (folder / "trace.py").read_text().replace("sch.get_block(", "sch.get_sblock(")
        namespace = {}
        exec(compile(script, str(folder / "trace.py"), "exec"), namespace)
        for stale in ("expected.py", "expected-error.txt"):
            (folder / stale).unlink(missing_ok=True)
        try:
            namespace["apply_trace"](sch)
        except Exception as error:  # the refusal is the expected result
            last = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
            (folder / "expected-error.txt").write_text(f"{type(error).__name__}: {last}\n")
            print(f"{name}: TVM {tvm.__version__} refuses: {last}")
            continue
        (folder / "expected.py").write_text(sch.mod.script() + "\n")
        print(f"{name}: TVM {tvm.__version__} accepts")


if __name__ == "__main__":
    main()
