#!/usr/bin/env python3
"""PolyBench/C 4.2 kernels: Loopscape's schedules against clang -O3 and Polly.

For each kernel of samples/polybench/ (at --size MEDIUM, LARGE or SMALL, or MINI) and
each thread count of --threads, this script times

  poly_optimize   loopscape-cli run --target cpu-llvm with the trace
                  bench/polybench/traces/poly_optimize.py (only `sch.poly_optimize()`);
                  a CLI that does not know the step prints the row as "n/a (<error>)"
  poly_auto       the same with bench/polybench/traces/poly_auto.py
                  (`sch.poly_auto(fusion="max", tile=[32, 32, 32])`)
  hand            gemm only: the Halide-style bench/polybench/traces/gemm_hand.py
  clang -O3       bench/polybench/<kernel>.c built by clang-16 -O3 -march=native, no
                  OpenMP: always 1 thread (the same measurement is shown at every thread
                  count)
  Polly           the same with -mllvm -polly -mllvm -polly-parallel -fopenmp=libgomp,
                  OMP_NUM_THREADS=N
  Polly (no pm)   Polly with -mllvm -polly-pattern-matching-based-opts=false (no BLAS-like
                  GEMM micro-kernel)

and prints per kernel: median ms, GFLOP/s (the flop counts below), the time of Polly on
the same thread count divided by the row's time ("vs Polly", > 1: faster than Polly) and
whether the row's outputs match the reference interpreter's.

Verification: the plain C binary writes its deterministic inputs (--dump-inputs); the
reference interpreter (`loopscape-cli check --inputs --save`) computes the reference
outputs from them; every row reads the same inputs and saves its outputs as .npy, which
are compared here with |x - ref| <= 1e-3 * |ref| + 1e-4 * max|ref| (float32; the C code
and the .te programs use the same formulation, so the differences are rounding only).
Our rows also pass --verify (the CLI compares against the interpreter itself).

Floating point: strict everywhere (no --fast-math for our rows, no -ffast-math or
-ffp-contract=fast for clang: clang-16's default -ffp-contract=on may still fuse a*b+c
within one C expression into an FMA, which changes the last bits only).

Sizes: each sample has a line "# sizes: MEDIUM A=.. B=..; LARGE ...; SMALL ...; MINI ..."
and its constants on one line (`NI, NJ, NK = 200, 220, 240`); seidel-2d.py (TVMScript,
which has no constants) lists its literals ("# literals: 100=TSTEPS 400=N 398=N-2"). The
script writes resized copies under bench/polybench/build/<size>/ (git-ignored), where the
C binaries go as well.

--quick: SMALL sizes, one repetition, no warm-up (a smoke test).
Python 3 standard library only (numpy is used to compare outputs when importable).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import time
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "polybench"
BENCH = ROOT / "bench" / "polybench"
TRACES = BENCH / "traces"

# Flops as PolyBench's C loop nests perform them: every +, -, * and / of the kernel, with
# the triangular loops of syrk, syr2k and covariance counted as PolyBench runs them (our
# formulations of those three do twice the multiply-adds; GFLOP/s counts only these).
def _tri(n: int) -> int:
    return n * (n + 1) // 2


FLOPS = {
    "gemm": lambda s: s["NI"] * s["NJ"] + 3 * s["NI"] * s["NJ"] * s["NK"],
    "2mm": lambda s: 3 * s["NI"] * s["NJ"] * s["NK"] + s["NI"] * s["NL"] + 2 * s["NI"] * s["NL"] * s["NJ"],
    "3mm": lambda s: 2 * (s["NI"] * s["NJ"] * s["NK"] + s["NJ"] * s["NL"] * s["NM"] + s["NI"] * s["NL"] * s["NJ"]),
    "atax": lambda s: 4 * s["M"] * s["N"],
    "bicg": lambda s: 4 * s["M"] * s["N"],
    "mvt": lambda s: 4 * s["N"] * s["N"],
    "gemver": lambda s: 10 * s["N"] * s["N"] + s["N"],
    "syrk": lambda s: _tri(s["N"]) * (1 + 3 * s["M"]),
    "syr2k": lambda s: _tri(s["N"]) * (1 + 6 * s["M"]),
    "covariance": lambda s: 2 * s["N"] * s["M"] + s["M"] + _tri(s["M"]) * (2 * s["N"] + 2),
    "jacobi-2d": lambda s: 2 * s["TSTEPS"] * (s["N"] - 2) ** 2 * 5,
    "heat-3d": lambda s: 2 * s["TSTEPS"] * (s["N"] - 2) ** 3 * 15,
    "seidel-2d": lambda s: s["TSTEPS"] * (s["N"] - 2) ** 2 * 9,
    "fdtd-2d": lambda s: s["TMAX"] * (3 * (s["NX"] - 1) * s["NY"] + 3 * s["NX"] * (s["NY"] - 1) + 5 * (s["NX"] - 1) * (s["NY"] - 1)),
}
KERNELS = list(FLOPS)


def sample_path(kernel: str) -> Path:
    te = SAMPLES / f"{kernel}.te"
    return te if te.exists() else SAMPLES / f"{kernel}.py"


def dataset_sizes(text: str) -> dict[str, dict[str, int]]:
    """The "# sizes:" line: {"MEDIUM": {"NI": 200, ...}, ...}."""
    m = re.search(r"^# sizes: (.*)$", text, re.M)
    if not m:
        raise SystemExit("no '# sizes:' line")
    out = {}
    for part in m.group(1).split(";"):
        words = part.split()
        out[words[0]] = {k: int(v) for k, v in (w.split("=") for w in words[1:])}
    return out


def resize(text: str, sizes: dict[str, int]) -> str:
    """The program with its size constants set to `sizes` (see the module comment)."""
    lit = re.search(r"^# literals: (.*)$", text, re.M)
    if lit:  # TVMScript: replace each literal (whole numbers only) outside comments
        table = {}
        for w in lit.group(1).split():
            value, expr = w.split("=")
            table[value] = str(eval(expr, {}, dict(sizes)))  # NAME or NAME-c: trusted files
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, table)) + r")\b")
        lines = [ln if ln.lstrip().startswith("#") else pattern.sub(lambda m: table[m.group(1)], ln) for ln in text.split("\n")]
        return "\n".join(lines)
    done = set()

    def line(m: re.Match) -> str:
        names = [n.strip() for n in m.group(1).split(",")]
        if not all(n in sizes for n in names):
            return m.group(0)
        done.update(names)
        return f"{m.group(1)} = {', '.join(str(sizes[n]) for n in names)}"

    out = re.sub(r"^([A-Z_][A-Z0-9_]*(?:, *[A-Z_][A-Z0-9_]*)*) = (\d+(?:, *\d+)*)$", line, text, flags=re.M)
    if done != set(sizes):
        raise SystemExit(f"size constants {sorted(set(sizes) - done)} not found")
    return out


# --- .npy -------------------------------------------------------------------------------

def read_npy(path: Path):
    """(shape, raw float32 bytes) of a C-ordered little-endian float32 .npy file."""
    data = path.read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    if data[6] == 1:
        (hlen,) = struct.unpack("<H", data[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", data[8:12])
        start = 12
    header = data[start:start + hlen].decode("latin1")
    if "'<f4'" not in header or "'fortran_order': True" in header:
        raise ValueError(f"{path}: not C-ordered float32: {header}")
    shape = tuple(int(x) for x in re.search(r"'shape': \(([^)]*)\)", header).group(1).replace(",", " ").split())
    return shape, data[start + hlen:]


def compare(out: Path, ref: Path) -> tuple[bool, str]:
    """Whether out/NAME.npy matches ref/NAME.npy for every reference output NAME."""
    worst = 0.0
    for r in sorted(ref.glob("*.npy")):
        o = out / r.name
        if not o.exists():
            return False, f"{r.stem} missing"
        rshape, rbytes = read_npy(r)
        oshape, obytes = read_npy(o)
        if rshape != oshape:
            return False, f"{r.stem} shape {oshape} != {rshape}"
        if rbytes == obytes:
            continue
        try:
            import numpy as np  # optional

            a = np.frombuffer(obytes, dtype="<f4").astype("f8")
            b = np.frombuffer(rbytes, dtype="<f4").astype("f8")
            scale = float(np.max(np.abs(b))) if b.size else 0.0
            err = np.abs(a - b)
            bad = ~(err <= 1e-3 * np.abs(b) + 1e-4 * scale)
            if bad.any():
                i = int(np.argmax(bad))
                return False, f"{r.stem}[{i}] = {a[i]:g}, reference {b[i]:g}"
            worst = max(worst, float(np.max(err / (np.abs(b) + 1e-4 * scale + 1e-30))))
        except ImportError:
            a = array("f")
            a.frombytes(obytes)
            b = array("f")
            b.frombytes(rbytes)
            scale = max(map(abs, b), default=0.0)
            for i, (x, y) in enumerate(zip(a, b)):
                if not abs(x - y) <= 1e-3 * abs(y) + 1e-4 * scale:
                    return False, f"{r.stem}[{i}] = {x:g}, reference {y:g}"
    return True, f"max rel err {worst:.1e}" if worst else "bit-exact"


# --- running ----------------------------------------------------------------------------

def child_env(threads: int | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
        # libgomp's default passive wait costs ~15 ms per parallel region on this VM (futex
        # wake-up latency); our thread pool spins, so the OpenMP threads spin too.
        env["OMP_WAIT_POLICY"] = "active"
    return env


def run_tool(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    """subprocess.run, retried for a minute while the executable cannot be started (another
    build relinking build/app/cli/loopscape-cli)."""
    for attempt in range(30):
        try:
            return subprocess.run(cmd, **kw)
        except OSError:  # EACCES, ENOENT, ETXTBSY while the file is rewritten
            if attempt == 29:
                raise
            time.sleep(2)
    raise AssertionError("unreachable")


def first_error_line(text: str) -> str:
    for ln in text.splitlines():
        if "error" in ln:
            return ln.strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0] if lines else "failed"


class Row:
    def __init__(self, name: str, ms: float | None = None, ok: bool | None = None, note: str = ""):
        self.name, self.ms, self.ok, self.note = name, ms, ok, note


def run_cli(args, cli: Path, program: Path, trace: Path, threads: int, inputs: Path, ref: Path, out: Path, name: str) -> Row:
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    cmd = [str(cli), "run", str(program), "--target", "cpu-llvm", "--trace", str(trace), "--threads", str(threads),
           "--in-process", "--no-peak", "--inputs", str(inputs), "--save", str(out), "--verify",
           "--repeat", str(args.repeat), "--warmup", str(args.warmup), "--min-repeat-ms", str(args.min_repeat_ms),
           "--timeout", "600"]
    try:
        p = run_tool(cmd, capture_output=True, text=True, env=child_env(), timeout=args.cli_timeout)
    except subprocess.TimeoutExpired:
        return Row(name, note=f"n/a (loopscape-cli run took over {args.cli_timeout:g} s: --cli-timeout)")
    text = p.stdout + p.stderr
    if p.returncode != 0 and "timing:" not in text:
        return Row(name, note=f"n/a ({first_error_line(text)})")
    m = re.search(r"median ms.*\n\s*([0-9.]+)\s+([0-9.]+)", text)
    ms = float(m.group(2)) if m else None
    cli_ok = p.returncode == 0 and " ok (" in text and "MISMATCH" not in text.upper()
    ok, why = compare(out, ref)
    note = why if cli_ok else f"CLI --verify failed: {first_error_line(text)}"
    return Row(name, ms, ok and cli_ok, note)


def build_c(kernel: str, sizes: dict[str, int], exe: Path, extra: list[str]) -> str | None:
    """Compiles bench/polybench/<kernel>.c; the compiler's first error line when it fails."""
    cmd = ["clang-16", "-O3", "-march=native", *extra, *[f"-D{k}={v}" for k, v in sizes.items()],
           "-o", str(exe), str(BENCH / f"{kernel}.c")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return None if p.returncode == 0 else first_error_line(p.stderr)


def run_c(args, exe: Path, threads: int, inputs: Path, ref: Path, out: Path, name: str) -> Row:
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    # One probe call sizes the repeats: about args.c_budget_ms of timed calls, 3 to 50.
    probe = subprocess.run([str(exe), "--inputs", str(inputs), "--warmup", "0", "--repeat", "1"], capture_output=True,
                           text=True, env=child_env(threads))
    if probe.returncode != 0:
        return Row(name, note=f"n/a ({first_error_line(probe.stderr + probe.stdout)})")
    t = float(re.search(r"median_ms: ([0-9.]+)", probe.stdout).group(1))
    repeat = 1 if args.quick else max(3, min(50, int(args.c_budget_ms / max(t, 1e-3))))
    p = subprocess.run([str(exe), "--inputs", str(inputs), "--save", str(out), "--warmup", str(args.warmup),
                        "--repeat", str(repeat)], capture_output=True, text=True, env=child_env(threads))
    if p.returncode != 0:
        return Row(name, note=f"n/a ({first_error_line(p.stderr + p.stdout)})")
    ms = float(re.search(r"median_ms: ([0-9.]+)", p.stdout).group(1))
    ok, why = compare(out, ref)
    return Row(name, ms, ok, why)


def bench_kernel(args, cli: Path, kernel: str, work: Path) -> dict[int, list[Row]]:
    src = sample_path(kernel)
    text = src.read_text()
    sizes = dataset_sizes(text)[args.size]
    kdir = work / kernel
    shutil.rmtree(kdir, ignore_errors=True)
    kdir.mkdir(parents=True)
    program = kdir / src.name
    program.write_text(resize(text, sizes))
    flops = FLOPS[kernel](sizes)
    print(f"\n== {kernel} ({args.size}: {' '.join(f'{k}={v}' for k, v in sizes.items())}; {flops / 1e6:.1f} MFLOP)", flush=True)

    # Inputs from the plain C build, reference outputs from the interpreter.
    exes = {}
    polly = ["-mllvm", "-polly", "-mllvm", "-polly-parallel", "-fopenmp=libgomp"]
    variants = {"clang -O3": [], "Polly": polly, "Polly (no pm)": polly + ["-mllvm", "-polly-pattern-matching-based-opts=false"]}
    errors = {}
    for name, flags in variants.items():
        exe = kdir / ("c_" + re.sub(r"\W+", "_", name).strip("_"))
        err = build_c(kernel, sizes, exe, flags)
        if err:
            errors[name] = err
        else:
            exes[name] = exe
    inputs, ref = kdir / "inputs", kdir / "ref"
    inputs.mkdir()
    ref.mkdir()
    if "clang -O3" not in exes:
        raise SystemExit(f"{kernel}: clang-16 failed: {errors.get('clang -O3')}")
    subprocess.run([str(exes["clang -O3"]), "--dump-inputs", str(inputs), "--warmup", "0", "--repeat", "1"], check=True,
                   capture_output=True, env=child_env(1))
    t0 = time.time()
    p = run_tool([str(cli), "check", str(program), "--inputs", str(inputs), "--save", str(ref)], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise SystemExit(f"{kernel}: loopscape-cli check failed:\n{p.stdout}{p.stderr}")
    print(f"   reference interpreter: {time.time() - t0:.1f} s", flush=True)

    traces = [("poly_optimize", TRACES / "poly_optimize.py"), ("poly_auto", TRACES / "poly_auto.py")]
    if kernel == "gemm":
        traces.append(("hand", TRACES / "gemm_hand.py"))
    clang_row = None
    if "clang -O3" in exes:
        clang_row = run_c(args, exes["clang -O3"], 1, inputs, ref, kdir / "out_clang", "clang -O3 (1 thread)")
    rows: dict[int, list[Row]] = {}
    for threads in args.threads:
        rs = []
        for name, trace in traces:
            rs.append(run_cli(args, cli, program, trace, threads, inputs, ref, kdir / f"out_{name}_{threads}", name))
        rs.append(clang_row)
        for name in ("Polly", "Polly (no pm)"):
            if name in exes:
                rs.append(run_c(args, exes[name], threads, inputs, ref, kdir / f"out_{name.replace(' ', '_')}_{threads}", name))
            else:
                rs.append(Row(name, note=f"unavailable ({errors[name]})"))
        rows[threads] = rs
        print_table(kernel, threads, rs, flops)
    return rows


def print_table(kernel: str, threads: int, rows: list[Row], flops: int) -> None:
    polly = next((r.ms for r in rows if r.name == "Polly" and r.ms), None)
    print(f"   {kernel}, {threads} thread{'s' if threads > 1 else ''}")
    print(f"   {'row':<22}{'ms':>10}{'GFLOP/s':>10}{'vs Polly':>10}  verified")
    for r in rows:
        if r.ms is None:
            print(f"   {r.name:<22}{r.note}")
            continue
        ratio = f"{polly / r.ms:.2f}x" if polly else "-"
        ver = ("yes" if r.ok else "NO") + (f" ({r.note})" if r.note else "")
        print(f"   {r.name:<22}{r.ms:>10.3f}{flops / r.ms / 1e6:>10.2f}{ratio:>10}  {ver}")
    sys.stdout.flush()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="MEDIUM", choices=["MINI", "SMALL", "MEDIUM", "LARGE"])
    ap.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated, default all: " + ",".join(KERNELS))
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--quick", action="store_true", help="SMALL sizes, one repetition (smoke test)")
    ap.add_argument("--repeat", type=int, default=5, help="timed repeats of our runs (default 5)")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--min-repeat-ms", type=float, default=50, help="least duration of one repeat of our runs")
    ap.add_argument("--c-budget-ms", type=float, default=400, help="about this much of timed calls per C row")
    ap.add_argument("--cli-timeout", type=float, default=60, help="seconds one loopscape-cli run may take (default 60)")
    ap.add_argument("--cli", default=str(ROOT / "build" / "app" / "cli" / "loopscape-cli"))
    ap.add_argument("--work", default=str(BENCH / "build"), help="resized programs, binaries, inputs and outputs")
    args = ap.parse_args()
    if args.quick:
        args.size, args.repeat, args.warmup, args.min_repeat_ms = "SMALL", 1, 0, 0
    args.threads = [int(t) for t in args.threads.split(",")]
    kernels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    unknown = [k for k in kernels if k not in FLOPS]
    if unknown:
        ap.error(f"unknown kernels {unknown}; known: {', '.join(KERNELS)}")
    cli = Path(args.cli)
    for _ in range(30):  # another build may be relinking the CLI
        if cli.exists():
            break
        time.sleep(2)
    if not shutil.which("clang-16"):
        print("clang-16 not found", file=sys.stderr)
        return 2
    work = Path(args.work) / args.size
    work.mkdir(parents=True, exist_ok=True)
    start = time.time()
    print(f"PolyBench 4.2 ({args.size}), float32, threads {args.threads}; cpu-llvm without --fast-math, clang-16 "
          f"-O3 -march=native without -ffast-math; clang -O3 runs 1 thread; 'vs Polly' = Polly ms / row ms")
    failed = 0
    for k in kernels:
        t0 = time.time()
        rows = bench_kernel(args, cli, k, work)
        print(f"   ({k}: {time.time() - t0:.1f} s)")
        failed += sum(1 for rs in rows.values() for r in rs if r.ms is not None and not r.ok)
    print(f"\ntotal {time.time() - start:.0f} s; {failed} timed row(s) not verified")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
