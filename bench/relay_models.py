#!/usr/bin/env python3
"""Relay models end to end: Loopscape's compiled graph (loopscape-cli relay run, cpu-llvm)
with each schedule source, against PyTorch's CPU inference of the same model with the
same weights and input, on 1 and 2 threads, in one run, and against the sum of the model's
layers timed one by one in the libraries (convolutions in oneDNN through torch, dense and
batch_matmul in OpenBLAS through numpy; pip install threadpoolctl to bound its threads).

The PyTorch side reads the same Relay text (a small evaluator of the ops the sample
models use, in torch.nn.functional) and the constants Loopscape used (--save-params), so
both compute the same function; the script checks their outputs agree before timing.

Usage (from the repository root, after bench/install-bench-deps.sh):
  bench/.venv/bin/python bench/relay_models.py [--models resnet18,bert_proxy]
      [--threads 1,2] [--schedules default,poly,default+layout] [--repeat 20] [--tuned LOG]
A schedule "S+layout" runs S after AlterOpLayout (relay run --alter-layout: NCHW[x]c
convolutions).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.pop("OPENBLAS_CORETYPE", None)  # the environment's setting halves OpenBLAS
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "build", "app", "cli", "loopscape-cli")

LINE = re.compile(r"^\s*(%\w+) = ([\w.]+)\((.*)\);$")


def split_args(text):
    """Top-level comma split (brackets nest)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def literal(text):
    text = text.strip()
    if text.startswith("["):
        return [literal(t) for t in split_args(text[1:-1])]
    if text in ("True", "False"):
        return text == "True"
    if text.startswith('"'):
        return text.strip('"')
    return float(text.rstrip("f")) if re.search(r"[.ef]", text) else int(text)


def int_list(v):
    return [int(x) for x in v]


class TorchModel:
    """The Relay text of a model evaluated with torch (batch-norm as inference)."""

    def __init__(self, path, params_dir):
        self.lines = []
        self.result = None
        for line in open(path):
            m = LINE.match(line)
            alias = re.match(r"^\s*(%\w+) = (%\w+)\.0;$", line)
            if m:
                self.lines.append((m.group(1), m.group(2), split_args(m.group(3))))
            elif alias:
                self.lines.append((alias.group(1), "identity", [alias.group(2)]))
            elif re.match(r"^\s*%\w+\s*$", line):
                self.result = line.strip()
            elif re.match(r"^\s*nn\.softmax\((%\w+)\)\s*$", line):
                self.lines.append(("%result", "nn.softmax", [re.search(r"(%\w+)", line).group(1)]))
                self.result = "%result"
        count = 1 + max(int(i) for i in re.findall(r"meta\[relay.Constant\]\[(\d+)\]", open(path).read()))
        self.consts = [torch.from_numpy(np.load(os.path.join(params_dir, "const_%d.npy" % i))) for i in range(count)]

    def value(self, env, text):
        text = text.strip()
        m = re.match(r"meta\[relay.Constant\]\[(\d+)\]", text)
        if m:
            return self.consts[int(m.group(1))]
        m = re.match(r"(%\w+)\.(\d+)$", text)
        if m:
            return env[m.group(1)]  # batch_norm(...).0: the normalised tensor
        if text.startswith("%"):
            return env[text]
        return torch.tensor(literal(text), dtype=torch.float32)

    def __call__(self, env, layers=None):
        """The result; `layers` (a list) receives (op, inputs, attrs) of every conv2d,
        dense and batch_matmul."""
        for name, op, args in self.lines:
            pos = [a for a in args if "=" not in a]
            at = {k.strip(): literal(v) for k, v in (a.split("=", 1) for a in args if "=" in a)}
            x = [self.value(env, a) for a in pos]
            if layers is not None and op in LIBRARY_OPS:
                layers.append((op, [t.clone() for t in x], at))
            env[name] = self.apply(op, x, at)
        return env[self.result]

    @staticmethod
    def apply(op, x, at):
        if op == "nn.batch_norm":
            gamma = x[1] if at.get("scale", True) else None
            return F.batch_norm(x[0], x[3], x[4], gamma, x[2], False, 0.0, at.get("epsilon", 1e-5))
        if op == "nn.conv2d":
            pad = int_list(at.get("padding", [0, 0, 0, 0]))
            return F.conv2d(x[0], x[1], stride=int_list(at.get("strides", [1, 1])), padding=(pad[0], pad[1]))
        if op == "identity":
            return x[0]
        if op == "nn.relu":
            return F.relu(x[0])
        if op == "nn.max_pool2d":
            pad = int_list(at.get("padding", [0, 0, 0, 0]))
            return F.max_pool2d(x[0], int_list(at["pool_size"]), int_list(at.get("strides", [1, 1])), (pad[0], pad[1]))
        if op == "nn.global_avg_pool2d":
            return x[0].mean(dim=(2, 3), keepdim=True)
        if op == "nn.batch_flatten":
            return x[0].flatten(1)
        if op == "nn.dense":
            return F.linear(x[0], x[1])
        if op == "nn.bias_add":
            axis = at.get("axis", 1)
            shape = [1] * x[0].dim()
            shape[axis] = -1
            return x[0] + x[1].reshape(shape)
        if op == "nn.softmax":
            return F.softmax(x[0], dim=at.get("axis", -1))
        if op == "nn.batch_matmul":
            b = x[1].transpose(1, 2) if at.get("transpose_b", True) else x[1]
            return torch.bmm(x[0], b)
        if op == "nn.layer_norm":
            return F.layer_norm(x[0], x[0].shape[-1:], x[1], x[2], at.get("epsilon", 1e-5))
        if op == "reshape":
            return x[0].reshape(at["newshape"])
        if op == "transpose":
            return x[0].permute(at["axes"])
        if op in ("add", "multiply", "divide"):
            return {"add": torch.add, "multiply": torch.mul, "divide": torch.div}[op](x[0], x[1])
        if op == "erf":
            return torch.erf(x[0])
        raise SystemExit("relay_models.py: no torch form of %s" % op)


LIBRARY_OPS = ("nn.conv2d", "nn.dense", "nn.batch_matmul")


def library_sum_ms(layers, threads, repeat):
    """The sum of each layer's median time alone in a library: convolutions in oneDNN
    (torch's CPU conv2d), dense and batch_matmul in OpenBLAS (numpy, threads limited
    with threadpoolctl). No fusion: the elementwise ops are not counted."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    total = 0.0
    for op, x, at in layers:
        if op == "nn.conv2d":
            with torch.inference_mode():
                total += median_ms(lambda: TorchModel.apply(op, x, at), repeat)
            continue
        a = x[0].numpy()
        b = x[1].numpy()
        b = b.transpose(0, 2, 1).copy() if op == "nn.batch_matmul" and at.get("transpose_b", True) else b
        if op == "nn.dense":
            b = np.ascontiguousarray(b.T)
        run = (lambda: np.matmul(a, b))
        if threadpool_limits:
            with threadpool_limits(limits=threads, user_api="blas"):
                total += median_ms(run, repeat)
        else:
            total += median_ms(run, repeat)
    return total


def median_ms(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * sorted(times)[len(times) // 2]


def loopscape(model, schedule, threads, repeat, work):
    # "<source>+layout": the same schedule source after AlterOpLayout (--alter-layout).
    layout = schedule.endswith("+layout")
    cmd = [CLI, "relay", "run", model, "--target", "cpu-llvm", "--schedule", schedule.removesuffix("+layout"),
           "--threads", str(threads), "--repeat", str(repeat), "--inputs", work, "--save", os.path.join(work, "out"),
           "--save-params", os.path.join(work, "params")] + (["--alter-layout"] if layout else [])
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit("%s failed:\n%s%s" % (" ".join(cmd), out.stdout, out.stderr))
    ms = float(re.search(r"end-to-end ([0-9.]+) ms", out.stdout).group(1))
    compiled = float(re.search(r"compiled \d+ groups in ([0-9.]+) s", out.stdout).group(1))
    return ms, compiled, wall, np.load(os.path.join(work, "out", "output_0.npy")), out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="resnet18,bert_proxy")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--schedules", default="default,poly")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--tuned", help="a tuning log: adds the tuned:LOG schedule")
    ap.add_argument("--rows", action="store_true", help="print Loopscape's per-group rows too")
    args = ap.parse_args()
    schedules = args.schedules.split(",") + (["tuned:" + args.tuned] if args.tuned else [])
    print("model        threads  schedule              loopscape ms  compile s  torch ms  torch/loopscape  "
          "library sum ms  library/loopscape  max |diff|")
    for name in args.models.split(","):
        model = os.path.join("samples", "relay", name + ".relay")
        text = open(os.path.join(ROOT, model)).read()
        pname, shape = re.search(r"def @main\((%\w+): Tensor\[\(([0-9, ]+)\), float32\]", text).groups()
        shape = [int(s) for s in shape.split(",")]
        with tempfile.TemporaryDirectory() as work:
            data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
            np.save(os.path.join(work, pname[1:] + ".npy"), data)
            for threads in [int(t) for t in args.threads.split(",")]:
                torch.set_num_threads(threads)
                torch_ms = lib_ms = None
                for schedule in schedules:
                    ms, compile_s, _, ours, stdout = loopscape(model, schedule, threads, args.repeat, work)
                    if torch_ms is None:
                        tm = TorchModel(os.path.join(ROOT, model), os.path.join(work, "params"))
                        x = torch.from_numpy(data)
                        layers = []
                        with torch.inference_mode():
                            ref = tm({pname: x}, layers).numpy()
                            torch_ms = median_ms(lambda: tm({pname: x}), args.repeat)
                        lib_ms = library_sum_ms(layers, threads, args.repeat)
                    diff = float(np.max(np.abs(ours - ref)))
                    print("%-12s %7d  %-20s %13.2f %10.1f %9.2f %16.2f %15.2f %18.2f  %10.2e" %
                          (name, threads, schedule, ms, compile_s, torch_ms, torch_ms / ms, lib_ms, lib_ms / ms, diff))
                    if args.rows:
                        print(stdout)
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
