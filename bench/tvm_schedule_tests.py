#!/usr/bin/env python3
"""Holds Loopscape's schedule primitives against Apache TVM's own schedule tests.

TVM's tests/python/s_tir/schedule/test_tir_schedule_*.py (tests/python/tir-schedule/ in
older releases) each build a `before` PrimFunc, call `sch.*` primitives on it and compare
the result with an `expected` PrimFunc, or expect the schedule to refuse. This script runs
those tests under pytest with TVM's Schedule instrumented: every Schedule records the
module it started from (as TVM prints it) and every primitive call (arguments, the random
variables it returned, or the error it raised), and, when the test ends, the module TVM
ended with. Each recorded schedule is then replayed here:

    loopscape-cli equal BEFORE.py AFTER.py --trace-a TRACE.py    (TVM accepted every call)
    loopscape-cli print BEFORE.py --trace TRACE.py               (TVM refused the last call)

and counted as one of
    equal        TVM and Loopscape give structurally equal programs
    both-refuse  TVM refused the last call and Loopscape refuses it too
    equivalent   both accept, the programs differ in form (the first structural
                 difference is listed: index expressions simplified another way, ...) but
                 compute the same outputs (`loopscape-cli check --save` of both on the same
                 seeded inputs, symbolic sizes bound to 37, compared with rtol 1e-4, atol 1e-5)
    differ       both accept, the programs differ and their outputs differ too, or could
                 not be compared (symbolic sizes, an interpreter time-out)
    we-refuse    TVM accepts, Loopscape refuses (the reason is listed)
    tvm-refuses  TVM refuses, Loopscape accepts
    not-read     Loopscape cannot read the program or the script (construct, primitive
                 or argument it does not support; the reason is listed)
    skipped      the schedule cannot be replayed outside Python (arguments such as
                 Python callables or TVM objects), or worked on several functions

Usage:
    bench/.venv/bin/python bench/tvm_schedule_tests.py TVM_CHECKOUT [-k PATTERN]
        [--cli build/app/cli/loopscape-cli] [--out DIR] [--files GLOB]
Set up: python3 -m venv bench/.venv && bench/.venv/bin/pip install apache-tvm numpy pytest
TVM_CHECKOUT is a clone of apache/tvm at the release matching the wheel (its tests only).
Prints one line per test file and the totals; DIR (default bench/tvm-schedule-tests/)
gets one folder per case (before.py, trace.py, after.py, loopscape.txt) and report.txt.
"""
import argparse
import collections
import json
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import tvm

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Methods of Schedule that are not primitives (queries of the state, bookkeeping).
NOT_RECORDED = {"get", "get_sref", "mod", "state", "trace", "show", "copy", "seed", "fork_seed", "work_on",
                "enter_postproc", "func_working_on", "remove_rv", "same_as", "id_", "is_"}
# TVM >= 0.21 spells some primitives differently from the TVM Python Loopscape reads.
RENAMED = {"get_sblock": "get_block"}


class Unreplayable(Exception):
    """An argument that has no TVM Python spelling outside the test's process."""


class Recorder:
    """The Schedule instrumentation and the pytest plugin that collects its records."""

    def __init__(self, sink=None):
        self.sink = sink       # a file the finished cases are appended to (JSON lines)
        self.cases = []        # finished cases: dicts with test, before, calls, after/error
        self.live = []         # [schedule, case] of the running test
        self.test = None

    # ---- pytest hooks ----
    def pytest_runtest_setup(self, item):
        self.test = item.nodeid
        self.live = []

    def pytest_runtest_teardown(self, item):
        for sch, case in self.live:
            if case["error"] is None and case["calls"]:
                try:
                    case["after"] = sch.mod.script()
                except Exception as error:  # noqa: BLE001 - record why, never stop the run
                    case["skip"] = f"TVM could not print the result: {error}"
            if case["calls"]:
                del case["names"]
                self.cases.append(case)
                if self.sink:
                    self.sink.write(json.dumps(case) + "\n")
                    self.sink.flush()
        self.live = []

    # ---- instrumentation ----
    def install(self, schedule_class):
        recorder = self
        original_init = schedule_class.__init__

        def init(sch, *args, **kwargs):
            original_init(sch, *args, **kwargs)
            case = {"test": recorder.test, "before": None, "calls": [], "error": None, "after": None,
                    "skip": None, "names": []}
            try:
                case["before"] = sch.mod.script()
                if len(sch.mod.functions) != 1:
                    case["skip"] = "the module has several functions"
            except Exception as error:  # noqa: BLE001
                case["skip"] = f"TVM could not print the module: {error}"
            recorder.live.append([sch, case])

        schedule_class.__init__ = init
        for name in dir(schedule_class):
            if name.startswith("_") or name in NOT_RECORDED:
                continue
            method = getattr(schedule_class, name)
            if callable(method):
                setattr(schedule_class, name, self.wrap(name, method))

    def case_of(self, sch):
        for s, case in self.live:
            if s is sch:
                return case
        return None

    def wrap(self, name, method):
        recorder = self

        def call(sch, *args, **kwargs):
            case = recorder.case_of(sch)
            if case is None or case["error"] is not None or case["skip"]:
                return method(sch, *args, **kwargs)
            try:
                line_args = [recorder.value(case, a) for a in args]
                line_args += [f"{k}={recorder.value(case, v)}" for k, v in kwargs.items()]
            except Unreplayable as why:
                case["skip"] = f"{name}: {why}"
                return method(sch, *args, **kwargs)
            try:
                result = method(sch, *args, **kwargs)
            except Exception as error:
                case["calls"].append((name, line_args, None))
                case["error"] = f"{type(error).__name__}: {str(error).strip().splitlines()[-1] if str(error).strip() else ''}"
                raise
            case["calls"].append((name, line_args, recorder.bind(case, result)))
            return result

        call.__name__ = name
        return call

    def bind(self, case, result):
        """Names for the random variables a call returned (None when it returned none)."""
        if isinstance(result, (list, tuple)) or type(result).__name__ == "Array":
            items = list(result)
            if items and all(self.is_rv(x) for x in items):
                return [self.name(case, x) for x in items]
            return None
        if self.is_rv(result):
            return self.name(case, result)
        return None

    @staticmethod
    def is_rv(x):
        return type(x).__name__ in ("SBlockRV", "BlockRV", "LoopRV", "ExprRV")

    @staticmethod
    def name(case, rv):
        names = case["names"]
        prefix = {"LoopRV": "l", "ExprRV": "v"}.get(type(rv).__name__, "b")
        names.append((rv, f"{prefix}{len(names)}"))
        return names[-1][1]

    def value(self, case, v):
        if self.is_rv(v):
            for rv, n in reversed(case["names"]):
                if rv is v or rv.same_as(v):
                    return n
            raise Unreplayable("a random variable the schedule did not return")
        if v is None or isinstance(v, bool):
            return repr(v)
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return repr(v)
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, (list, tuple)) or type(v).__name__ == "Array":
            return "[" + ", ".join(self.value(case, x) for x in v) + "]"
        if type(v).__name__ == "IntImm":
            return str(int(v))
        if isinstance(v, dict):
            return "{" + ", ".join(f"{self.value(case, k)}: {self.value(case, x)}" for k, x in v.items()) + "}"
        raise Unreplayable(f"an argument of type {type(v).__name__}")


def trace_script(case):
    lines = ["def apply_trace(sch):"]
    for name, args, out in case["calls"]:
        call = f"sch.{RENAMED.get(name, name)}({', '.join(args)})"
        if isinstance(out, list):
            lines.append(f"    {', '.join(out)}{',' if len(out) == 1 else ''} = {call}" if out else f"    {call}")
        elif out:
            lines.append(f"    {out} = {call}")
        else:
            lines.append(f"    {call}")
    return "\n".join(lines) + "\n"


def same_outputs(cli, folder):
    """Runs both programs in the reference interpreter on the same seeded inputs."""
    import numpy as np
    ours, theirs = folder / "out-loopscape", folder / "out-tvm"
    runs = [[cli, "check", str(folder / "before.py"), "--trace", str(folder / "trace.py"), "--save", str(ours)],
            [cli, "check", str(folder / "after.py"), "--save", str(theirs)]]
    shapes = []  # symbolic sizes get an odd value, so that split tails are exercised
    for run in runs:
        while True:
            try:
                r = subprocess.run(run + shapes, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                return False, "outputs not compared (interpreter time-out)"
            unbound = re.search(r"symbolic size '(\w+)' is not bound", r.stderr)
            if r.returncode == 0 or not unbound or len(shapes) > 8:
                break
            shapes += ["--shape", f"{unbound.group(1)}=37"]
        if r.returncode != 0:
            first = (r.stderr.strip() or r.stdout.strip()).splitlines()[:1]
            return False, f"outputs not compared ({first[0] if first else r.returncode})"
    files = sorted(p.name for p in ours.glob("*.npy"))
    if not files or files != sorted(p.name for p in theirs.glob("*.npy")):
        return False, "outputs not compared (different output buffers)"
    for name in files:
        a, b = np.load(ours / name), np.load(theirs / name)
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True):
            return False, f"output {name} differs"
    return True, ""


def replay(cli, case, folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "before.py").write_text(case["before"])
    (folder / "trace.py").write_text(trace_script(case))
    if case["error"] is None:
        (folder / "after.py").write_text(case["after"])
        r = subprocess.run([cli, "equal", str(folder / "before.py"), str(folder / "after.py"), "--trace-a",
                            str(folder / "trace.py")], capture_output=True, text=True, timeout=300)
    else:
        (folder / "tvm-error.txt").write_text(case["error"] + "\n")
        r = subprocess.run([cli, "print", str(folder / "before.py"), "--trace", str(folder / "trace.py")],
                           capture_output=True, text=True, timeout=300)
    (folder / "loopscape.txt").write_text(r.stdout + r.stderr)
    first = (r.stderr.strip() or r.stdout.strip()).splitlines()[:1]
    reason = first[0] if first else ""
    refused = r.returncode == 3
    unread = r.returncode == 2 or r.returncode < 0 or r.returncode > 3
    if unread:
        return "not-read", reason
    if case["error"] is None:
        if r.returncode == 0:
            return "equal", ""
        if refused:
            return "we-refuse", reason
        difference = " / ".join(r.stdout.strip().splitlines()[:4])
        same, why = same_outputs(cli, folder)
        return ("equivalent" if same else "differ"), (difference if same else f"{why}; {difference}")
    if refused:
        return "both-refuse", ""
    return "tvm-refuses", case["error"]


def record(test_file, sink_path, k):
    """Runs one test file under pytest with the instrumented Schedule."""
    schedule_class = tvm.s_tir.Schedule if hasattr(tvm, "s_tir") else tvm.tir.Schedule
    with open(sink_path, "w") as sink:
        recorder = Recorder(sink)
        recorder.install(schedule_class)
        pytest_args = ["-q", "-p", "no:cacheprovider", "--no-header", "-p", "no:faulthandler"]
        if k:
            pytest_args += ["-k", k]
        return pytest.main(pytest_args + [test_file], plugins=[recorder])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--record":
        sys.exit(int(record(sys.argv[2], sys.argv[3], sys.argv[5] if len(sys.argv) > 5 else None)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tvm", type=pathlib.Path, help="a checkout of apache/tvm")
    ap.add_argument("--cli", default=str(ROOT / "build/app/cli/loopscape-cli"))
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "bench/tvm-schedule-tests")
    ap.add_argument("--files", default="test_tir_schedule_*.py")
    ap.add_argument("-k", default=None, help="pytest -k expression")
    args = ap.parse_args()

    folders = [args.tvm / "tests/python/s_tir/schedule", args.tvm / "tests/python/tir-schedule"]
    folder = next((f for f in folders if f.is_dir()), None)
    if folder is None:
        sys.exit(f"no schedule tests under {args.tvm} (looked in {', '.join(map(str, folders))})")
    files = sorted(folder.glob(args.files))

    # One process per test file: a test that crashes TVM itself (seen: a segfault in
    # Trace.as_json) costs that file's remaining tests, not the run.
    args.out.mkdir(parents=True, exist_ok=True)
    cases, crashed = [], []
    for f in files:
        sink = args.out / f"{f.stem}.jsonl"
        sink.unlink(missing_ok=True)
        command = [sys.executable, __file__, "--record", str(f), str(sink)] + (["-k", args.k] if args.k else [])
        try:
            r = subprocess.run(command, capture_output=True, text=True, timeout=900)
            status = r.returncode
        except subprocess.TimeoutExpired:
            status = "time-out"
        if status not in (0, 1, 5):  # pytest: all passed, some failed, none collected
            crashed.append(f"{f.name} ({status})")
        if sink.exists():
            cases += [json.loads(line) for line in sink.read_text().splitlines()]
        print(f"recorded {f.name}: {len(cases)} schedules so far" + (f", ended with {status}" if status else ""),
              flush=True)

    for old in args.out.glob("[0-9][0-9][0-9][0-9]-*"):
        shutil.rmtree(old)
    totals = collections.Counter()
    per_file = collections.defaultdict(collections.Counter)
    report = []
    seen = set()
    for n, case in enumerate(cases):
        # TVM's verify_trace_roundtrip replays a test's trace (spelled by Trace.as_python) on
        # a new schedule: count each (test, program, number of calls, result) once.
        key = (case["test"], case["before"], len(case["calls"]), case["after"], case["error"])
        if key in seen:
            continue
        seen.add(key)
        file = case["test"].split("::")[0].rsplit("/", 1)[-1]
        if case["skip"] or case["before"] is None:
            kind, reason = "skipped", case["skip"] or "no module"
        else:
            name = case["test"].split("::", 1)[-1].replace("/", "_")
            for c in "[]: ,":
                name = name.replace(c, "_")
            kind, reason = replay(args.cli, case, args.out / f"{n:04d}-{name}")
        totals[kind] += 1
        per_file[file][kind] += 1
        if kind not in ("equal", "both-refuse"):
            report.append(f"{kind:12} {case['test']}  {reason}")
    kinds = ["equal", "both-refuse", "equivalent", "differ", "we-refuse", "tvm-refuses", "not-read", "skipped"]
    print(f"\n{'file':52} " + " ".join(f"{k:>11}" for k in kinds))
    for file in sorted(per_file):
        print(f"{file:52} " + " ".join(f"{per_file[file][k]:>11}" for k in kinds))
    print(f"{'total':52} " + " ".join(f"{totals[k]:>11}" for k in kinds))
    replayed = sum(totals[k] for k in kinds if k != "skipped")
    agree = totals["equal"] + totals["both-refuse"]
    same = agree + totals["equivalent"]
    if crashed:
        print(f"\ntest files whose run TVM ended early (their schedules up to then are counted): {', '.join(crashed)}")
    print(f"\nTVM {tvm.__version__}: {len(cases)} schedules recorded, {replayed} replayed, "
          f"{agree} give TVM's program or refuse as TVM does ({agree / max(replayed, 1):.1%} of those replayed), "
          f"{same} compute what TVM computes or refuse as it does ({same / max(replayed, 1):.1%})")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.txt").write_text("\n".join(report) + "\n")
    print(f"details: {args.out / 'report.txt'}")


if __name__ == "__main__":
    main()
