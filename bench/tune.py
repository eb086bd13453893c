#!/usr/bin/env python3
"""Auto-scheduling: Loopscape's tuner against Apache TVM's MetaSchedule and a library ceiling.

Set up (once; bench/.venv is git-ignored, about 6 GB with torch's CUDA wheels):

    python3 -m venv bench/.venv && bench/.venv/bin/pip install apache-tvm==0.27.0.post1 \\
        "apache-tvm-ffi==0.1.14.post1" xgboost psutil cloudpickle numpy torch

(apache-tvm 0.27.0.post1 crashes whenever it serialises a module unless apache-tvm-ffi is
pinned to 0.1.14.post1; MetaSchedule needs xgboost, psutil and cloudpickle beside it; torch
only provides the conv2d ceiling and is skipped with a note when it is missing; the CPU
wheel index download.pytorch.org was not reachable here, plain PyPI's torch was.)

    python3 bench/tune.py                    # trials 16,64,256,1000: hours (TVM ~2-3 s a trial)
    python3 bench/tune.py --quick            # trials 16,64
    python3 bench/tune.py --trials 16,64 --workloads matmul --threads 2
    python3 bench/tune.py --smoke            # tiny sizes, 4 trials, 1 thread, no waiting for a
                                             # quiet machine: ours and the ceilings take seconds,
                                             # TVM's part about a minute (its builder start)

For each workload (samples/matmul.te: 1024x1024x1024 float32; samples/conv2d_nchw.te: the
3x3 layer of ResNet-18 stage 1, 1x64x56x56 input, 64 filters 3x3, pad 1; the sizes are read
from the files) and each thread count of --threads, the script runs

  ours          `loopscape-cli tune FILE --target cpu-llvm --strategy S --trials MAX
                --threads T --records LOG --curve CSV --seed SEED --batch B`, one run per
                strategy (evolutionary, poly, mixed) up to the largest trial count; the best
                GFLOP/s and the elapsed seconds at each count are read from the curve CSV
                (time at N = the CLI's start-up until its first progress line + the curve's
                seconds at N); the records are checked (one per trial, numbered 1..N, every
                success's GFLOP/s = FLOP / median seconds) and the cost model's rank
                correlation line is kept from stdout; then `tune --records LOG
                --evaluate-model 5` cross-validates the cost model on the run's records
                (held-out rank correlation and top pick, the prior and the random model beside
                it).
  MetaSchedule  tvm.s_tir.meta_schedule.tune_tir on the same computation written in TE here
                (te.create_prim_func), target {"kind": "llvm", "mcpu": M, "num-cores": T},
                TVM_NUM_THREADS=T, max_trials_global MAX, num_trials_per_iter B (our batch;
                TVM's default is 64), the same seed. Best-at-N comes from its JSON database
                (database_tuning_record.json, one line per measured candidate in trial order,
                failures as run_secs 1e10): GFLOP/s = FLOP / mean(run_secs). TVM reports no
                per-trial time, so a measure callback stamps the end of every batch: time at
                N = end of the batch holding trial N, counted from the tune_tir call (import
                tvm, ~3.5 s here, is not counted). Its final best is rebuilt (compile_tir),
                checked against numpy and re-timed (3 fresh processes, their median, as ours).
  ceiling       matmul: numpy's OpenBLAS (A @ B), OPENBLAS_NUM_THREADS=T set before numpy is
                imported, one subprocess per thread count; conv2d: torch.nn.functional.conv2d
                (oneDNN) with torch.set_num_threads(T); torch's matmul is shown for reference.

and prints one table per workload and thread count: best GFLOP/s and time at each trial
count, the ratio against MetaSchedule at equal trials and against the ceiling, the trial
at which each of our strategies first reached 90% of its final best, the cost model's rank
correlation, and failed trials. --mcpu: LLVM CPU name for TVM; by default the one TVM's LLVM
reports for the host, or where it says "generic" (an LLVM older than the CPU), the nearest
known one from /proc/cpuinfo's flags (znver4 with avx512f on AMD, else znver3, haswell...).
Our cpu-llvm plugin has no such option: it uses LLVM 16's host name and feature list.

Measurement hygiene: every child gets OMP_NUM_THREADS=T, OMP_WAIT_POLICY=active (our
parallel loops run on libgomp; TVM's pool spins too) and no OPENBLAS_CORETYPE. Before each
run the script waits while another process uses the CPU (sampled over 10 s; once it saw
one, until the 1-minute load average is below --max-load); during each run a monitor reads
/proc every second and sums the CPU time of processes that are not ours. A run during
which other processes used more than --disturbed-cores on average is marked "*" (2-thread
kernels on a 2-core machine are disturbed by any other busy process). Results go to
WORK/results.json and WORK/results.md (WORK: --work, default build/bench-tune).

Python 3 standard library only; the TVM and ceiling parts run in --venv's python.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
STRATEGIES = ["evolutionary", "poly", "mixed"]


# --- workloads --------------------------------------------------------------------------

class Workload:
    """A sample and its size constants (read from the file; --smoke shrinks them)."""

    def __init__(self, name: str, sample: str, title: str, smoke: dict[str, int]):
        self.name, self.sample, self.title, self.smoke_sizes = name, SAMPLES / sample, title, smoke

    def sizes(self, smoke: bool) -> dict[str, int]:
        text = self.sample.read_text()
        out = {}
        for m in re.finditer(r"^([a-zA-Z_][\w]*(?:, *[a-zA-Z_]\w*)*) = (\d+(?:, *\d+)*)$", text, re.M):
            names = [n.strip() for n in m.group(1).split(",")]
            values = [int(v) for v in m.group(2).split(",")]
            if len(names) == len(values):
                out.update(zip(names, values))
        if smoke:
            out.update(self.smoke_sizes)
        return out

    def program(self, sizes: dict[str, int], work: Path) -> Path:
        """The sample with its size constants set to `sizes` (a copy under work/)."""
        text = self.sample.read_text()

        def line(m: re.Match) -> str:
            names = [n.strip() for n in m.group(1).split(",")]
            if not all(n in sizes for n in names):
                return m.group(0)
            return f"{m.group(1)} = {', '.join(str(sizes[n]) for n in names)}"

        text = re.sub(r"^([a-zA-Z_]\w*(?:, *[a-zA-Z_]\w*)*) = (\d+(?:, *\d+)*)$", line, text, flags=re.M)
        out = work / self.sample.name
        out.write_text(text)
        return out


WORKLOADS = {
    "matmul": Workload("matmul", "matmul.te", "matmul", {"M": 64, "N": 64, "K": 64}),
    "conv2d": Workload("conv2d", "conv2d_nchw.te", "conv2d_nchw (ResNet-18 3x3)",
                       {"in_channel": 8, "height": 14, "width": 14, "out_channel": 8}),
}


def flops_of(name: str, s: dict[str, int]) -> int:
    """Multiply-adds x 2 (the padding stage is not counted)."""
    if name == "matmul":
        return 2 * s["M"] * s["N"] * s["K"]
    oh = (s["height"] + 2 * s["pad"] - s["kernel"]) // s["stride"] + 1
    ow = (s["width"] + 2 * s["pad"] - s["kernel"]) // s["stride"] + 1
    return 2 * s["batch"] * s["out_channel"] * oh * ow * s["in_channel"] * s["kernel"] * s["kernel"]


def shape_text(name: str, s: dict[str, int]) -> str:
    if name == "matmul":
        return f"{s['M']}x{s['N']}x{s['K']} float32"
    return (f"{s['batch']}x{s['in_channel']}x{s['height']}x{s['width']}, {s['out_channel']} filters "
            f"{s['kernel']}x{s['kernel']}, pad {s['pad']}, stride {s['stride']}, float32")


# --- environment and load ---------------------------------------------------------------

def child_env(threads: int) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)  # set to Haswell on this machine; let OpenBLAS detect
    env["OMP_NUM_THREADS"] = str(threads)
    # libgomp's default passive wait costs a futex wake-up per parallel region; our parallel
    # loops and torch run on libgomp, TVM's own pool spins.
    env["OMP_WAIT_POLICY"] = "active"
    env["OPENBLAS_NUM_THREADS"] = str(threads)
    env["TVM_NUM_THREADS"] = str(threads)
    env["PYTHONUNBUFFERED"] = "1"
    return env


CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_table() -> dict[int, tuple[int, int, str, float]]:
    """pid -> (ppid, start time, comm, cpu seconds) for every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                text = f.read()
        except OSError:
            continue
        r = text.rfind(")")
        comm = text[text.find("(") + 1:r]
        fields = text[r + 2:].split()
        # fields[0] is state (field 3); utime, stime are fields 14, 15; starttime 22
        out[int(d)] = (int(fields[1]), int(fields[19]), comm, (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return out


class LoadMonitor:
    """CPU seconds used by processes that are not this script or its descendants."""

    def __init__(self):
        self.me = os.getpid()
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.thread = None

    def _foreign(self, table):
        out = {}
        for pid, (ppid, start, comm, cpu) in table.items():
            p, hops = pid, 0
            while p > 1 and p != self.me and hops < 64:
                p = table.get(p, (0,))[0]
                hops += 1
            if p != self.me:
                out[(pid, start)] = (comm, cpu)
        return out

    def sample(self, seconds: float) -> tuple[float, list[tuple[str, float]]]:
        """Other processes' CPU (cores on average) over `seconds`, and the busiest ones."""
        self.start()
        time.sleep(seconds)
        return self.finish()

    def start(self):
        self.base = self._foreign(proc_table())
        self.used = {}
        self.t0 = time.monotonic()
        self.stop_event.clear()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop_event.wait(1.0):
            self._poll()

    def _poll(self):
        now = self._foreign(proc_table())
        with self.lock:
            for key, (comm, cpu) in now.items():
                before = self.base.get(key, (comm, 0.0))[1]  # new processes: all of their CPU
                self.used[key] = (comm, max(0.0, cpu - before))

    def finish(self) -> tuple[float, list[tuple[str, float]]]:
        self.stop_event.set()
        if self.thread:
            self.thread.join()
        self._poll()
        wall = max(1e-9, time.monotonic() - self.t0)
        by_name: dict[str, float] = {}
        for comm, cpu in self.used.values():
            by_name[comm] = by_name.get(comm, 0.0) + cpu
        total = sum(by_name.values())
        top = sorted(((n, c) for n, c in by_name.items() if c >= 0.5), key=lambda x: -x[1])[:4]
        return total / wall, top


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def wait_quiet(args, monitor: LoadMonitor, what: str) -> dict:
    """Waits while another process uses the CPU; once one did, until the load average is
    below --max-load too. Returns what it saw."""
    t0 = time.time()
    seen_busy = False
    last_note = 0.0
    while True:
        cores, top = monitor.sample(args.quiet_window)
        la = loadavg()
        if cores < args.quiet_cores and (la < args.max_load or not seen_busy):
            return {"waited_s": round(time.time() - t0), "load_before": la, "other_cores_before": round(cores, 3)}
        seen_busy = seen_busy or cores >= args.quiet_cores
        if time.time() - t0 > args.max_wait:
            print(f"   ! still busy after {args.max_wait:g} s (load {la:.2f}, others {cores:.2f} cores: "
                  f"{', '.join(n for n, _ in top)}); running {what} anyway", flush=True)
            return {"waited_s": round(time.time() - t0), "load_before": la, "other_cores_before": round(cores, 3),
                    "gave_up_waiting": True}
        if time.time() - last_note > 120:
            print(f"   waiting before {what}: load average {la:.2f}, other processes {cores:.2f} cores "
                  f"({', '.join(f'{n} {c:.0f}s' for n, c in top) or 'short-lived'})", flush=True)
            last_note = time.time()
        time.sleep(args.quiet_sleep)


def run_tool(cmd: list[str], **kw) -> subprocess.Popen:
    """Popen, retried for a minute while the executable cannot be started (another build
    relinking build/app/cli/loopscape-cli)."""
    for attempt in range(30):
        try:
            return subprocess.Popen(cmd, **kw)
        except OSError:
            if attempt == 29:
                raise
            time.sleep(2)
    raise AssertionError("unreachable")


def monitored(args, monitor: LoadMonitor, what: str, fn):
    """Runs fn() between a wait for quiet and a load check; returns (fn(), load info)."""
    info = wait_quiet(args, monitor, what) if not args.no_wait else {"load_before": loadavg()}
    monitor.start()
    try:
        result = fn()
    finally:
        cores, top = monitor.finish()
    info.update({"other_cores": round(cores, 3), "others": [f"{n} {c:.0f}s" for n, c in top],
                 "load_after": loadavg(), "disturbed": cores > args.disturbed_cores})
    if info["disturbed"]:
        print(f"   * disturbed: other processes used {cores:.2f} cores on average "
              f"({', '.join(info['others']) or 'short-lived'})", flush=True)
    return result, info


# --- our tuner --------------------------------------------------------------------------

def run_ours(args, cli: Path, program: Path, wl: str, sizes: dict[str, int], strategy: str, threads: int,
             work: Path) -> dict:
    tag = f"{wl}_{strategy}_{threads}t"
    log, csv, out_txt, err_txt = (work / f"{tag}.{ext}" for ext in ("records.jsonl", "curve.csv", "stdout.txt",
                                                                   "stderr.txt"))
    # A fresh search: no records and no cost model saved beside them (LOG.xgb, LOG.xgb.data).
    for p in (log, csv, log.with_name(log.name + ".xgb"), log.with_name(log.name + ".xgb.data")):
        p.unlink(missing_ok=True)
    trials = max(args.trials)
    cmd = [str(cli), "tune", str(program), "--target", "cpu-llvm", "--trials", str(trials), "--strategy", strategy,
           "--threads", str(threads), "--records", str(log), "--curve", str(csv), "--seed", str(args.seed),
           "--batch", str(args.batch)]
    if args.fast_math:
        cmd.append("--fast-math")
    if args.no_prior:
        cmd.append("--no-prior")
    res = {"row": strategy, "cmd": " ".join(cmd)}
    t_launch = time.monotonic()
    first_line = []
    with open(out_txt, "w") as fo:
        p = run_tool(cmd, stdout=fo, stderr=subprocess.PIPE, text=True, env=child_env(threads))
        err_lines = []
        try:
            deadline = t_launch + args.run_timeout
            for ln in p.stderr:
                if not first_line:
                    first_line.append(time.monotonic() - t_launch)
                err_lines.append(ln)
                if time.monotonic() > deadline:
                    p.kill()
                    err_lines.append(f"bench: killed after --run-timeout {args.run_timeout:g} s\n")
                    break
            p.wait()
        except KeyboardInterrupt:
            p.kill()
            raise
    wall = time.monotonic() - t_launch
    err_txt.write_text("".join(err_lines))
    stdout = out_txt.read_text()
    res.update({"wall_s": round(wall, 1), "rc": p.returncode})
    if not csv.exists():
        res["error"] = next((ln.strip() for ln in err_lines if "error" in ln), f"exit {p.returncode}, no curve")
        return res
    curve = []
    for ln in csv.read_text().splitlines()[1:]:
        t, s, g = ln.split(",")[:3]  # trial, seconds, best_gflops (then best_gbps)
        curve.append((int(t), float(s), float(g)))
    startup = first_line[0] if first_line else 0.0
    res["startup_s"] = round(startup, 2)
    res["curve"] = curve
    m = re.search(r"# cost model (\S+): rank correlation (-?[0-9.]+|nan) .* over the (\d+) candidates", stdout)
    res["model"] = {"name": m.group(1), "rho": float(m.group(2)), "n": int(m.group(3)), "line": m.group(0)} if m else None
    m = re.search(r"# best: ([0-9.]+) GFLOP/s, ([0-9.]+) ms \(trial (\d+), family (\S+), sketch (.*)\)", stdout)
    if m:
        res["best"] = {"gflops": float(m.group(1)), "ms": float(m.group(2)), "trial": int(m.group(3)),
                       "family": m.group(4).rstrip(","), "sketch": m.group(5)}
    res["dropped"] = [ln.split("dropped before measuring:")[1].strip() for ln in err_lines if "dropped before" in ln]
    res.update(check_records(log, wl, sizes, trials))
    res["held_out"] = evaluate_model(args, cli, program, log, threads)
    if res.get("best"):
        res["final"] = retime_ours(args, cli, program, log, threads)
    return res


def run_cli(args, cmd: list[str], threads: int, timeout: float) -> tuple[int | None, str]:
    """`cmd` (with --fast-math when the bench has it), stdout and stderr together; the exit
    status is None when it ran past `timeout` seconds and was killed."""
    if args.fast_math:
        cmd = cmd + ["--fast-math"]
    p = run_tool(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=child_env(threads))
    try:
        text, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        return None, ""
    return p.returncode, text


def evaluate_model(args, cli: Path, program: Path, log: Path, threads: int) -> list[str]:
    """The cost model cross-validated on the run's records (`tune --evaluate-model 5`): the
    in-search rank correlation scores only the candidates the model chose to measure."""
    rc, text = run_cli(args, [str(cli), "tune", str(program), "--target", "cpu-llvm", "--records", str(log),
                              "--threads", str(threads), "--seed", str(args.seed), "--evaluate-model", "5"],
                       threads, 1800)
    if rc is None:
        return ["held-out evaluation took over 1800 s"]
    lines = [ln.lstrip("# ") for ln in text.splitlines() if "held-out rank correlation" in ln]
    return lines or [next((ln.strip() for ln in text.splitlines() if "error" in ln), f"exit {rc}")]


RETIMES = 3  # fresh processes per re-timing: this VM's 2-thread medians swing by up to 2x between processes


def retimed(one) -> dict:
    """`one()` run RETIMES times: the median of their times, all of them, ok only if every run was."""
    runs = [one() for _ in range(RETIMES)]
    good = [r for r in runs if "ms" in r]
    if not good:
        return runs[0]
    return {"ms": statistics.median(r["ms"] for r in good), "runs_ms": [r["ms"] for r in good],
            "ok": all(r.get("ok") for r in runs)}


def retime_ours(args, cli: Path, program: Path, log: Path, threads: int) -> dict:
    """The best record re-timed and verified by `loopscape-cli run`, RETIMES fresh processes."""
    return retimed(lambda: retime_once(args, cli, program, log, threads))


def retime_once(args, cli: Path, program: Path, log: Path, threads: int) -> dict:
    rc, text = run_cli(args, [str(cli), "run", str(program), "--target", "cpu-llvm", "--trace", f"best:{log}",
                              "--threads", str(threads), "--no-peak", "--repeat", "5", "--min-repeat-ms", "50",
                              "--verify", "--timeout", "60"], threads, 600)
    if rc is None:
        return {"error": "loopscape-cli run took over 600 s"}
    m = re.search(r"median ms.*\n\s*([0-9.]+)\s+([0-9.]+)", text)
    if not m:
        return {"error": next((ln.strip() for ln in text.splitlines() if "error" in ln), f"exit {rc}")}
    ok = rc == 0 and " ok (" in text and "MISMATCH" not in text.upper()
    return {"ms": float(m.group(2)), "ok": ok}


def check_records(log: Path, wl: str, sizes: dict[str, int], trials: int) -> dict:
    """Reads our records: error kinds, families, and anything inconsistent."""
    problems, errors, fams = [], {}, {}
    recs = []
    try:
        for i, ln in enumerate(log.read_text().splitlines(), 1):
            try:
                recs.append(json.loads(ln))
            except ValueError:
                problems.append(f"line {i} is not JSON")
    except OSError:
        return {"record_problems": ["no records file"]}
    if len(recs) != trials:
        problems.append(f"{len(recs)} records for {trials} trials")
    if [r.get("trial") for r in recs] != list(range(1, len(recs) + 1)):
        problems.append("trial numbers are not 1..N in order")
    flops = flops_of(wl, sizes)
    ratios = []
    for r in recs:
        fams[r.get("family") or "?"] = fams.get(r.get("family") or "?", 0) + 1
        if r.get("error"):
            kind = r["error"].split(":")[0]
            errors[kind] = errors.get(kind, 0) + 1
            if r.get("seconds") or r.get("gflops"):
                problems.append(f"trial {r.get('trial')}: error with a time")
            continue
        secs = r.get("seconds") or []
        if not secs:
            problems.append(f"trial {r.get('trial')}: no error and no time")
            continue
        ratios.append(r["gflops"] / (flops / statistics.median(secs) / 1e9))
    if ratios and (max(ratios) > 1.001 or min(ratios) < 0.999):
        problems.append(f"GFLOP/s differs from FLOP/median(seconds) by x{min(ratios):.3f}..x{max(ratios):.3f} "
                        f"(our FLOP count {statistics.median(ratios) * flops:.4g}, this script's {flops:.4g})")
    first_err = next((r["error"] for r in recs if r.get("error")), "")
    return {"records": len(recs), "errors": errors, "families": fams, "record_problems": problems,
            "flop_ratio": statistics.median(ratios) if ratios else 1.0, "first_error": first_err[:200]}


# --- children (run in the venv) ----------------------------------------------------------

def tvm_cpu(override: str | None) -> tuple[str, str]:
    """The LLVM CPU name for TVM, and where it came from."""
    from tvm.target import codegen  # noqa: PLC0415

    if override:
        return override, "--mcpu"
    host = str(codegen.llvm_get_system_cpu())
    if host and host != "generic":
        return host, f"TVM's LLVM {codegen.llvm_version_major()} host CPU"
    flags = set()
    vendor = ""
    for ln in Path("/proc/cpuinfo").read_text().splitlines():
        if ln.startswith("flags") and not flags:
            flags = set(ln.split(":", 1)[1].split())
        if ln.startswith("vendor_id") and not vendor:
            vendor = ln.split(":", 1)[1].strip()
    amd = vendor == "AuthenticAMD"
    if "avx512f" in flags:
        cpu = "znver4" if amd else ("sapphirerapids" if "amx_tile" in flags else "skylake-avx512")
    elif "avx2" in flags:
        cpu = "znver3" if amd and "vaes" in flags else ("znver2" if amd else "haswell")
    else:
        cpu = "x86-64"
    return cpu, f"nearest known CPU from /proc/cpuinfo flags (TVM's LLVM says '{host}')"


def tvm_func(wl: str, s: dict[str, int]):
    """The workload as te.create_prim_func makes it: the same computation as the sample."""
    import tvm  # noqa: PLC0415
    from tvm import te  # noqa: PLC0415

    if wl == "matmul":
        A = te.placeholder((s["M"], s["K"]), dtype="float32", name="A")
        B = te.placeholder((s["K"], s["N"]), dtype="float32", name="B")
        k = te.reduce_axis((0, s["K"]), name="k")
        C = te.compute((s["M"], s["N"]), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
        return te.create_prim_func([A, B, C])
    n, c, h, w = s["batch"], s["in_channel"], s["height"], s["width"]
    f, kk, pad, st = s["out_channel"], s["kernel"], s["pad"], s["stride"]
    oh, ow = (h + 2 * pad - kk) // st + 1, (w + 2 * pad - kk) // st + 1
    data = te.placeholder((n, c, h, w), dtype="float32", name="data")
    weight = te.placeholder((f, c, kk, kk), dtype="float32", name="weight")
    pad_temp = te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda i0, i1, i2, i3: te.if_then_else(
            tvm.tirx.all(i2 >= pad, i2 < h + pad, i3 >= pad, i3 < w + pad),
            data[i0, i1, i2 - pad, i3 - pad], tvm.tirx.const(0.0, "float32")),
        name="pad_temp")
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, kk), name="ry")
    rx = te.reduce_axis((0, kk), name="rx")
    conv = te.compute(
        (n, f, oh, ow),
        lambda nn, ff, yy, xx: te.sum(pad_temp[nn, rc, yy * st + ry, xx * st + rx] * weight[ff, rc, ry, rx],
                                      axis=[rc, ry, rx]),
        name="conv2d_nchw", tag="conv2d_nchw")
    return te.create_prim_func([data, weight, conv])


def np_inputs_and_ref(wl: str, s: dict[str, int]):
    import numpy as np  # noqa: PLC0415

    rng = np.random.default_rng(0)
    if wl == "matmul":
        a = rng.uniform(-1, 1, (s["M"], s["K"])).astype("float32")
        b = rng.uniform(-1, 1, (s["K"], s["N"])).astype("float32")
        return [a, b], (a.astype("float64") @ b.astype("float64")).astype("float32")
    x = rng.uniform(-1, 1, (s["batch"], s["in_channel"], s["height"], s["width"])).astype("float32")
    w = rng.uniform(-1, 1, (s["out_channel"], s["in_channel"], s["kernel"], s["kernel"])).astype("float32")
    p, st, k = s["pad"], s["stride"], s["kernel"]
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (p, p), (p, p)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::st, ::st]
    return [x, w], np.einsum("ncyxij,fcij->nfyx", win, w.astype("float64")).astype("float32")


def child_tvm(a) -> dict:
    t_start = time.perf_counter()
    import numpy as np  # noqa: PLC0415
    import tvm  # noqa: PLC0415
    from tvm.ir.utils import derived_object  # noqa: PLC0415
    from tvm.s_tir import meta_schedule as ms  # noqa: PLC0415

    t_imported = time.perf_counter()
    sizes = json.loads(a.sizes)
    func = tvm_func(a.workload, sizes)
    cpu, cpu_why = tvm_cpu(a.mcpu or None)
    target = tvm.target.Target({"kind": "llvm", "mcpu": cpu, "num-cores": a.threads})
    stamps: list[tuple[float, int]] = []

    @derived_object
    class BatchClock(ms.measure_callback.PyMeasureCallback):
        def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
            stamps.append((time.perf_counter(), len(runner_results)))

    work = Path(a.tvm_work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    callbacks = list(ms.measure_callback.MeasureCallback.create("default")) + [BatchClock()]
    t0 = time.perf_counter()
    ms.tune_tir(mod=func, target=target, work_dir=str(work), max_trials_global=a.max_trials,
                     num_trials_per_iter=a.batch, seed=a.seed, measure_callbacks=callbacks,
                     builder=ms.builder.LocalBuilder(timeout_sec=a.build_timeout))
    t_end = time.perf_counter()
    # The database in trial order: one line per measured candidate, failures as 1e10 s.
    secs = []
    for ln in (work / "database_tuning_record.json").read_text().splitlines():
        rec = json.loads(ln)[1]
        run_secs = [float(x) for x in (rec[1] or [])]
        ok = bool(run_secs) and max(run_secs) < 1e9
        secs.append(sum(run_secs) / len(run_secs) if ok else None)
    batches, done = [], 0
    for t, n in stamps:
        done += n
        batches.append((done, round(t - t0, 3)))
    out = {"mcpu": cpu, "mcpu_why": cpu_why, "tvm": tvm.__version__, "import_s": round(t_imported - t_start, 2),
           "tune_s": round(t_end - t0, 2), "secs": secs, "batches": batches, "batch": a.batch}
    return out


def child_tvmfinal(a) -> dict:
    import numpy as np  # noqa: PLC0415
    import tvm  # noqa: PLC0415
    from tvm.s_tir import meta_schedule as ms  # noqa: PLC0415
    from tvm.s_tir.meta_schedule.tir_integration import compile_tir  # noqa: PLC0415

    sizes = json.loads(a.sizes)
    func = tvm_func(a.workload, sizes)
    target = tvm.target.Target({"kind": "llvm", "mcpu": a.mcpu, "num-cores": a.threads})
    try:
        db = ms.database.JSONDatabase(work_dir=a.tvm_work)
        sch = compile_tir(db, func, target)
        if sch is None:
            raise RuntimeError("compile_tir found no record")
        lib = tvm.compile(sch.mod, target=target)
        ins, ref = np_inputs_and_ref(a.workload, sizes)
        dev = tvm.cpu()
        args = [tvm.runtime.tensor(x, dev) for x in ins] + [tvm.runtime.tensor(np.zeros_like(ref), dev)]
        lib["main"](*args)
        got = args[-1].numpy()
        err = float(np.max(np.abs(got - ref)) / (np.max(np.abs(ref)) + 1e-30))
        ev = lib.mod.time_evaluator("main", dev, number=1, repeat=5, min_repeat_ms=50)
        res = ev(*args)
        return {"ms": float(np.median(res.results)) * 1e3, "max_rel_err": err, "ok": err < 1e-4}
    except Exception as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}


def time_calls(fn, budget_s: float = 0.2, repeats: int = 7) -> float:
    """Median seconds per call: warm-up, then `repeats` repeats of >= budget_s each."""
    fn()
    t = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t, 1e-7)
    n = max(1, int(budget_s / one))
    per = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        per.append((time.perf_counter() - t) / n)
    return statistics.median(per)


def child_numpy(a) -> dict:
    import ctypes  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    sizes = json.loads(a.sizes)
    ins, ref = np_inputs_and_ref("matmul", sizes)
    x, y = ins
    got = x @ y
    err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
    sec = time_calls(lambda: np.matmul(x, y))
    core = config = "?"
    libs = list((Path(np.__file__).parent.parent / "numpy.libs").glob("libscipy_openblas*.so"))
    if libs:
        try:
            lib = ctypes.CDLL(str(libs[0]))
            for fname, var in (("scipy_openblas_get_corename64_", "core"), ("scipy_openblas_get_config64_", "config")):
                f = getattr(lib, fname)
                f.restype = ctypes.c_char_p
                if var == "core":
                    core = f().decode()
                else:
                    config = f().decode()
        except (OSError, AttributeError):
            pass
    return {"row": f"numpy {np.__version__} (OpenBLAS, core {core})", "ms": sec * 1e3, "ok": err < 1e-4,
            "config": config}


def child_torch(a) -> dict:
    try:
        import torch  # noqa: PLC0415
    except ImportError:
        return {"skipped": "torch is not installed in the venv (pip install torch)"}
    import numpy as np  # noqa: PLC0415

    torch.set_num_threads(a.threads)
    sizes = json.loads(a.sizes)
    ins, ref = np_inputs_and_ref(a.workload, sizes)
    t = [torch.from_numpy(x) for x in ins]
    with torch.no_grad():
        if a.workload == "matmul":
            fn = lambda: torch.mm(t[0], t[1])  # noqa: E731
            what = "torch.mm"
        else:
            fn = lambda: torch.nn.functional.conv2d(t[0], t[1], padding=sizes["pad"], stride=sizes["stride"])  # noqa: E731
            what = "torch conv2d" + (" (oneDNN)" if torch.backends.mkldnn.is_available() else "")
        got = fn().numpy()
        err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
        sec = time_calls(fn)
    return {"row": f"{what}, torch {torch.__version__.split('+')[0]}", "ms": sec * 1e3, "ok": err < 1e-3,
            "threads": torch.get_num_threads()}


def run_child(args, kind: str, wl: str, sizes: dict[str, int], threads: int, extra: list[str], timeout: float,
              log: Path) -> dict:
    cmd = [args.venv_python, str(Path(__file__).resolve()), "--child", kind, "--workload", wl,
           "--child-threads", str(threads), "--sizes", json.dumps(sizes), *extra]
    out = log.with_suffix(".json")
    out.unlink(missing_ok=True)
    cmd += ["--child-out", str(out)]
    try:
        with open(log, "w") as f:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=child_env(threads), timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:g} s (see {log})"}
    if out.exists():
        return json.loads(out.read_text())
    tail = [ln for ln in log.read_text().splitlines() if ln.strip()][-3:]
    return {"error": f"exit {p.returncode}: {' | '.join(tail)[-300:]} (see {log})"}


# --- reading the curves -----------------------------------------------------------------

def ours_at(res: dict, n: int):
    """(best GFLOP/s, seconds since launch) after n trials, from the curve."""
    pts = [p for p in res.get("curve", []) if p[0] <= n]
    if not pts or pts[-1][0] < n:
        return None
    return pts[-1][2] / res.get("flop_ratio", 1.0), res["startup_s"] + pts[-1][1]


def tvm_at(res: dict, n: int, flops: int):
    secs = res.get("secs") or []
    if len(secs) < n:
        return None
    good = [s for s in secs[:n] if s]
    best = flops / min(good) / 1e9 if good else 0.0
    t = next((tt for done, tt in res["batches"] if done >= n), None)
    return best, t


def reached_90(res: dict) -> tuple[int, float] | None:
    curve = res.get("curve") or []
    if not curve or curve[-1][2] <= 0:
        return None
    final = curve[-1][2]
    for t, s, g in curve:
        if g >= 0.9 * final:
            return t, res["startup_s"] + s
    return None


# --- tables -----------------------------------------------------------------------------

def final_text(fin: dict | None, flops: int) -> str:
    if not fin:
        return ""
    if "ms" not in fin:
        return f"; re-timing the best failed: {fin.get('error', '?')}"
    spread = ", ".join(f"{flops / ms / 1e6:.1f}" for ms in fin.get("runs_ms", []))
    return (f"; the best re-timed in {len(fin.get('runs_ms', [])) or 1} fresh processes: {flops / fin['ms'] / 1e6:.1f} "
            f"GFLOP/s median ({spread}), {'verified' if fin['ok'] else 'WRONG RESULT'}")


def model_text(model: dict | None) -> str:
    return f"{model['rho']:.2f} ({model['n']})" if model else "-"


def fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    return f"{s:.0f}s" if s < 600 else f"{s / 60:.1f}m"


def build_rows(trials, ours: dict, tvm: dict | None, ceiling: dict | None, flops: int):
    """Rows of (name, [(gflops, time, vs_ms, vs_ceiling) per trial count], 90%, model, errors,
    disturbed)."""
    ceil_g = flops / (ceiling["ms"] / 1e3) / 1e9 if ceiling and ceiling.get("ms") else None
    ms_at = {n: (tvm_at(tvm, n, flops) if tvm and "secs" in tvm else None) for n in trials}
    rows = []
    for name, res in list(ours.items()) + ([("MetaSchedule", tvm)] if tvm else []):
        cells = []
        for n in trials:
            at = tvm_at(res, n, flops) if name == "MetaSchedule" else ours_at(res, n)
            if not at:
                cells.append(None)
                continue
            g, t = at
            vs_ms = g / ms_at[n][0] if ms_at.get(n) and ms_at[n][0] > 0 else None
            vs_c = g / ceil_g if ceil_g else None
            cells.append((g, t, vs_ms, vs_c))
        if name == "MetaSchedule":
            secs = res.get("secs") or []
            nerr = sum(1 for s in secs if not s)
            r90, model, errs = None, None, f"{nerr}" if secs else res.get("error", "-")
        else:
            r90 = reached_90(res)
            model = res.get("model")
            errs = ", ".join(f"{v} {k}" for k, v in sorted(res.get("errors", {}).items())) or "0"
            if "error" in res:
                errs = res["error"]
        rows.append((name, cells, r90, model, errs, (res.get("load") or {}).get("disturbed")))
    return rows, ceil_g


def print_table(wl_title: str, threads: int, trials, rows, ceil_g, ceiling, extra_rows) -> None:
    print(f"\n   {wl_title}, {threads} thread{'s' if threads > 1 else ''}")
    head = f"   {'row':<14}"
    for n in trials:
        head += f" | {f'{n} trials: GFLOP/s':>19} {'time':>5} {'vs MS':>6} {'vs ceil':>7}"
    head += " | 90% of final at | model rho (n) | failed"
    print(head)
    for name, cells, r90, model, errs, dist in rows:
        line = f"   {name + ('*' if dist else ''):<14}"
        for c in cells:
            if c is None:
                line += f" | {'-':>19} {'':>5} {'':>6} {'':>7}"
                continue
            g, t, vs_ms, vs_c = c
            line += (f" | {g:>19.1f} {fmt_time(t):>5} {(f'{vs_ms:.2f}x' if vs_ms else '-'):>6} "
                     f"{(f'{vs_c:.0%}' if vs_c else '-'):>7}")
        line += f" | {(f'trial {r90[0]} ({fmt_time(r90[1])})' if r90 else '-'):>15}"
        line += f" | {model_text(model):>13}"
        line += f" | {errs}"
        print(line)
    for r in extra_rows:
        print(f"   {r}")
    sys.stdout.flush()


def markdown_table(wl_title: str, threads: int, trials, rows, extra_rows) -> str:
    out = [f"**{wl_title}, {threads} thread{'s' if threads > 1 else ''}**", ""]
    head = "| row |" + "".join(f" {n} trials: GFLOP/s (time) | vs MS | vs ceiling |" for n in trials)
    head += " 90% of final at | model rho (n) | failed |"
    out += [head, "|---|" + "---:|---:|---:|" * len(trials) + "---|---|---|"]
    for name, cells, r90, model, errs, dist in rows:
        line = f"| {name}{' *' if dist else ''} |"
        for c in cells:
            if c is None:
                line += " - | - | - |"
                continue
            g, t, vs_ms, vs_c = c
            line += f" {g:.1f} ({fmt_time(t)}) | {f'{vs_ms:.2f}x' if vs_ms else '-'} | {f'{vs_c:.0%}' if vs_c else '-'} |"
        line += f" {f'trial {r90[0]} ({fmt_time(r90[1])})' if r90 else '-'} |"
        line += f" {model_text(model)} | {errs} |"
        out.append(line)
    out.append("")
    out += [f"{r}  " for r in extra_rows]
    return "\n".join(out) + "\n"


# --- main -------------------------------------------------------------------------------

def child_main(a) -> int:
    # Every CPU, whatever mask the parent had (TVM's thread pool pins threads; a process
    # started from a pinned thread would inherit it).
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    fn = {"tvm": child_tvm, "tvmfinal": child_tvmfinal, "numpy": child_numpy, "torch": child_torch}[a.child]
    a.threads = a.child_threads
    out = fn(a)
    Path(a.child_out).write_text(json.dumps(out))
    return 0


def cpu_model() -> str:
    for ln in Path("/proc/cpuinfo").read_text().splitlines():
        if ln.startswith("model name"):
            return ln.split(":", 1)[1].strip()
    return platform.processor()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workloads", default="matmul,conv2d", help="comma-separated: matmul, conv2d")
    ap.add_argument("--threads", default=None, help="comma-separated thread counts (default 1,2; --smoke: 1)")
    ap.add_argument("--trials", default=None, help="comma-separated trial counts (default 16,64,256,1000)")
    ap.add_argument("--quick", action="store_true", help="trials 16,64")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, 4 trials, 1 thread: checks the script")
    ap.add_argument("--strategies", default=",".join(STRATEGIES), help="our strategies (default all three)")
    ap.add_argument("--skip", default="", help="comma-separated parts to leave out: ours, tvm, ceiling")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16, help="candidates per round, ours and TVM's (default 16)")
    ap.add_argument("--fast-math", action="store_true", help="our candidates with --fast-math (TVM always "
                    "contracts a*b+c into FMA; our default is strict IEEE)")
    ap.add_argument("--no-prior", action="store_true", help="our first batch drawn at random (MetaSchedule's "
                    "cold start) instead of ranked by the prior model")
    ap.add_argument("--mcpu", default="", help="LLVM CPU name for TVM (default: detected, see above)")
    ap.add_argument("--tvm-build-timeout", type=float, default=120,
                    help="TVM LocalBuilder timeout, s (default 120: each batch's builder pool imports "
                         "tvm.s_tir.tensor_intrin, ~20 s here, inside TVM's default 30 s)")
    ap.add_argument("--run-timeout", type=float, default=4 * 3600, help="seconds one tuning run may take")
    ap.add_argument("--max-load", type=float, default=0.5, help="wait for a load average below this after "
                    "another process was seen busy (default 0.5)")
    ap.add_argument("--quiet-cores", type=float, default=0.05, help="others' CPU (cores) that counts as busy")
    ap.add_argument("--quiet-window", type=float, default=10, help="seconds sampled for the quiet check")
    ap.add_argument("--quiet-sleep", type=float, default=30, help="seconds between quiet checks")
    ap.add_argument("--max-wait", type=float, default=3 * 3600, help="give up waiting after this many seconds")
    ap.add_argument("--no-wait", action="store_true", help="do not wait for a quiet machine")
    ap.add_argument("--disturbed-cores", type=float, default=0.1,
                    help="mark a run '*' when others used more cores than this on average (default 0.1)")
    ap.add_argument("--cli", default=str(ROOT / "build" / "app" / "cli" / "loopscape-cli"))
    ap.add_argument("--venv", default=str(ROOT / "bench" / ".venv"), help="virtualenv with apache-tvm, numpy, torch")
    ap.add_argument("--work", default=str(ROOT / "build" / "bench-tune"), help="programs, logs and results")
    # Internal: the children that run in the venv.
    ap.add_argument("--child", choices=["tvm", "tvmfinal", "numpy", "torch"], help=argparse.SUPPRESS)
    ap.add_argument("--workload", help=argparse.SUPPRESS)
    ap.add_argument("--child-threads", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--sizes", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    ap.add_argument("--max-trials", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--tvm-work", help=argparse.SUPPRESS)
    ap.add_argument("--build-timeout", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child_main(args)

    trials = args.trials or ("4" if args.smoke else "16,64" if args.quick else "16,64,256,1000")
    args.trials = sorted({int(t) for t in trials.split(",")})
    if args.smoke:
        args.no_wait = True  # a check of the script, not a measurement
        if args.batch == 16:
            args.batch = 4  # one round: TVM pays its builder-pool start once
    args.threads = [int(t) for t in (args.threads or ("1" if args.smoke else "1,2")).split(",")]
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    for w in workloads:
        if w not in WORKLOADS:
            ap.error(f"unknown workload {w}; known: {', '.join(WORKLOADS)}")
    if skip - {"ours", "tvm", "ceiling"}:
        ap.error(f"--skip takes ours, tvm, ceiling, not {sorted(skip - {'ours', 'tvm', 'ceiling'})}")
    cli = Path(args.cli)
    for _ in range(30):  # another build may be relinking the CLI
        if cli.exists():
            break
        time.sleep(2)
    args.venv_python = str(Path(args.venv) / "bin" / "python")
    if not Path(args.venv_python).exists():
        print(f"no virtualenv at {args.venv}: TVM and the ceilings are skipped (see the set-up line at the top "
              f"of {Path(__file__).name})", flush=True)
        skip |= {"tvm", "ceiling"}
    work = Path(args.work) / ("smoke" if args.smoke else "full")
    work.mkdir(parents=True, exist_ok=True)
    monitor = LoadMonitor()
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    command = "python3 bench/tune.py " + " ".join(sys.argv[1:])
    print(f"Auto-scheduling benchmark, {date}: {cpu_model()}, {os.cpu_count()} CPUs; trials {args.trials}, threads "
          f"{args.threads}, batch {args.batch}, seed {args.seed}; ours: cpu-llvm"
          f"{' --fast-math' if args.fast_math else ' (strict FP)'}{' --no-prior' if args.no_prior else ''}; "
          f"'vs MS' = ours / MetaSchedule at equal "
          f"trials; time = wall-clock from the tuner's start; * = disturbed by other processes", flush=True)
    results = {"date": date, "cpu": cpu_model(), "command": command, "trials": args.trials, "threads": args.threads,
               "batch": args.batch, "seed": args.seed, "fast_math": args.fast_math, "workloads": {}}
    md = [f"Run of {date} on {cpu_model()} ({os.cpu_count()} CPUs): `{command}`\n"]
    start = time.time()
    for wl in workloads:
        W = WORKLOADS[wl]
        sizes = W.sizes(args.smoke)
        flops = flops_of(wl, sizes)
        wdir = work / wl
        wdir.mkdir(parents=True, exist_ok=True)
        program = W.program(sizes, wdir)
        title = f"{W.title} {shape_text(wl, sizes)}"
        print(f"\n== {title} ({flops / 1e9:.3f} GFLOP)", flush=True)
        wres = results["workloads"][wl] = {"title": title, "flops": flops, "sizes": sizes, "threads": {}}
        for threads in args.threads:
            tres = wres["threads"][str(threads)] = {"ours": {}, "tvm": None, "ceiling": [], "ceiling_row": None}
            if "ceiling" not in skip:
                kinds = ["numpy", "torch"] if wl == "matmul" else ["torch"]
                for kind in kinds:
                    r, load = monitored(args, monitor, f"{kind} ({threads}t)", lambda: run_child(
                        args, kind, wl, sizes, threads, [], 900, wdir / f"{kind}_{threads}t.log"))
                    r["load"] = load
                    r["kind"] = kind
                    tres["ceiling"].append(r)
                    if r.get("ms"):
                        print(f"   ceiling {r['row']}, {threads}t: {r['ms']:.3f} ms, "
                              f"{flops / r['ms'] / 1e6:.1f} GFLOP/s{'' if r.get('ok') else ' (WRONG RESULT)'}",
                              flush=True)
                    else:
                        print(f"   ceiling {kind}, {threads}t: {r.get('skipped') or r.get('error')}", flush=True)
                main_kind = "numpy" if wl == "matmul" else "torch"
                tres["ceiling_row"] = next((r for r in tres["ceiling"] if r["kind"] == main_kind and r.get("ms")), None)
            if "ours" not in skip:
                for s in strategies:
                    r, load = monitored(args, monitor, f"ours {s} ({threads}t)",
                                        lambda: run_ours(args, cli, program, wl, sizes, s, threads, wdir))
                    r["load"] = load
                    tres["ours"][s] = r
                    best = r["curve"][-1][2] if r.get("curve") else 0
                    n = r["curve"][-1][0] if r.get("curve") else 0
                    print(f"   ours {s}, {threads}t: {n} trials in {r['wall_s']:.0f} s "
                          f"(start {r.get('startup_s', 0):.1f} s), best {best:.1f} GFLOP/s"
                          f"{', ' + r['error'] if 'error' in r else ''}"
                          f"{'; model rho ' + format(r['model']['rho'], '.2f') if r.get('model') else ''}"
                          f"{final_text(r.get('final'), flops)}"
                          f"{'; records: ' + '; '.join(r['record_problems']) if r.get('record_problems') else ''}",
                          flush=True)
            if "tvm" not in skip:
                extra = ["--max-trials", str(max(args.trials)), "--batch", str(args.batch), "--seed", str(args.seed),
                         "--tvm-work", str(wdir / f"tvm_{threads}t"), "--build-timeout", str(args.tvm_build_timeout)]
                if args.mcpu:
                    extra += ["--mcpu", args.mcpu]
                def tvm_run():
                    r = run_child(args, "tvm", wl, sizes, threads, extra, args.run_timeout, wdir / f"tvm_{threads}t.log")
                    if "secs" in r:  # its best rebuilt, checked and re-timed in a fresh process
                        r["final"] = retimed(lambda: run_child(
                            args, "tvmfinal", wl, sizes, threads,
                            ["--tvm-work", str(wdir / f"tvm_{threads}t"), "--mcpu", r["mcpu"]],
                            600, wdir / f"tvm_final_{threads}t.log"))
                    return r

                r, load = monitored(args, monitor, f"MetaSchedule ({threads}t)", tvm_run)
                r["load"] = load
                tres["tvm"] = r
                if "secs" in r:
                    good = [x for x in r["secs"] if x]
                    fin = r.get("final", {})
                    print(f"   MetaSchedule (TVM {r['tvm']}, mcpu {r['mcpu']}: {r['mcpu_why']}), {threads}t: "
                          f"{len(r['secs'])} trials in {r['tune_s']:.0f} s (first batch done at "
                          f"{r['batches'][0][1] if r['batches'] else 0:.0f} s; import tvm {r['import_s']:.1f} s), best "
                          f"{flops / min(good) / 1e9 if good else 0:.1f} GFLOP/s{final_text(fin, flops)}", flush=True)
                else:
                    print(f"   MetaSchedule, {threads}t: {r.get('error')}", flush=True)
            rows, ceil_g = build_rows(args.trials, tres["ours"], tres["tvm"], tres["ceiling_row"], flops)
            extra_rows = []
            for c in tres["ceiling"]:
                if c.get("ms"):
                    mark = " (the ceiling)" if c is tres["ceiling_row"] else ""
                    extra_rows.append(f"{c['row']}: {flops / c['ms'] / 1e6:.1f} GFLOP/s{mark}"
                                      f"{'' if c.get('ok') else ', WRONG RESULT'}{' *' if c['load'].get('disturbed') else ''}")
                else:
                    extra_rows.append(f"{c['kind']}: {c.get('skipped') or c.get('error')}")
            finals = [(s, r.get("final")) for s, r in tres["ours"].items()]
            if tres["tvm"]:
                finals.append(("MetaSchedule", tres["tvm"].get("final")))
            finals = [f"{s} {flops / f['ms'] / 1e6:.1f}{'' if f['ok'] else ' (WRONG)'}" if f and "ms" in f
                      else f"{s} {f.get('error') if f else '-'}" for s, f in finals]
            if finals:
                extra_rows.append(f"best of each run re-timed, median of {RETIMES} fresh processes (GFLOP/s): " + "; ".join(finals))
            for s, r in tres["ours"].items():
                if r.get("model"):
                    extra_rows.append(f"{s}: {r['model']['line'].lstrip('# ')}")
                for line in r.get("held_out") or []:
                    extra_rows.append(f"{s}: on its records, 5-fold cross-validated: {line}")
                if r.get("record_problems"):
                    extra_rows.append(f"{s}: records: {'; '.join(r['record_problems'])}")
            print_table(title, threads, args.trials, rows, ceil_g, tres["ceiling_row"], extra_rows)
            md.append(markdown_table(title, threads, args.trials, rows, extra_rows))
            (work / "results.json").write_text(json.dumps(results, indent=1))
            (work / "results.md").write_text("\n".join(md))
    print(f"\ntotal {time.time() - start:.0f} s; results in {work / 'results.json'} and {work / 'results.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
