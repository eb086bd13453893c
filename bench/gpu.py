#!/usr/bin/env python3
"""GPU matmul and convolutions: Loopscape's samples/traces/matmul_gpu.py schedule
(shared-memory tiling, 16x16 threads, 4x4 register tile, float4 write-back), its larger
tile samples/traces/matmul_gpu_128.py (128x128 per block, 8x8 per thread) and
samples/traces/conv2d_nchw_gpu.py (one block per output row and 4 channels, weights in
shared memory) through the `opencl` target (and the `cuda` target where it can run),
against cuBLAS SGEMM and cuDNN (through PyTorch, or CuPy for the matmul) on the same
machine. The convolutions are the 3x3 stride-1 layers of ResNet-18's four stages (64
channels 56x56, 128 28x28, 256 14x14, 512 7x7); the conv trace's copy split, 56 (the
thread count along a row), is set to each layer's width.

  * With an NVIDIA GPU (nvidia-smi and libcuda.so.1 present): N defaults to 4096; the
    opencl target is pointed at NVIDIA's OpenCL driver (OCL_ICD_VENDORS set to
    /etc/OpenCL/vendors/nvidia.icd when it exists), so the kernel runs on the GPU; the
    same schedule also runs through the `cuda` target (NVRTC's PTX, loaded by the CUDA
    driver), a second pair of rows; cuBLAS SGEMM is timed with CUDA events. If the cuda
    target fails (no CUDA toolkit for NVRTC, a driver older than the PTX), the script
    prints what it says instead of its rows.
  * Without a GPU: N defaults to 256 and the opencl target runs on PoCL, i.e. on this
    machine's CPU. Those numbers are a SMOKE TEST ONLY of the GPU path (the lowering, the
    OpenCL C, the host library, the launch): they say nothing about GPU performance, and
    the report says so.

Loopscape's time is the kernel time from OpenCL profiling events (LOOPSCAPE_OPENCL_PROFILE=1)
or CUDA events (LOOPSCAPE_CUDA_PROFILE=1), the minimum over all calls; the worker's time per
call, which also covers the copies in and out and the launch, is printed beside it. --verify checks the result (against the
unscheduled program compiled by cpu-c above the interpret limit: slow at 4096).

Usage (from the repository root, after building loopscape-cli and the opencl and cuda plugins):
  python3 bench/gpu.py [--workload matmul|conv|all] [--n 4096] [--repeat 5] [--verify]
"""
import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "build", "app", "cli", "loopscape-cli")
MATMUL_TRACES = [os.path.join(ROOT, "samples", "traces", t) for t in ("matmul_gpu.py", "matmul_gpu_128.py")]
CONV_TRACE = os.path.join(ROOT, "samples", "traces", "conv2d_nchw_gpu.py")
# ResNet-18's 3x3 stride-1 layers: (channels in = out, height = width).
CONV_LAYERS = [(64, 56), (128, 28), (256, 14), (512, 7)]
NVIDIA_ICD = "/etc/OpenCL/vendors/nvidia.icd"


def have_gpu():
    """An NVIDIA GPU with its driver: nvidia-smi lists one and libcuda.so.1 loads."""
    if not shutil.which("nvidia-smi"):
        return False
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return out.returncode == 0 and "GPU" in out.stdout


def nvidia_icd():
    """An ICD file for NVIDIA's OpenCL driver: /etc/OpenCL/vendors/nvidia.icd, or one written
    to a temporary folder naming libnvidia-opencl.so.1 where the driver's libraries are
    (containers often mount the driver without its ICD file); None without the driver."""
    if os.path.exists(NVIDIA_ICD):
        return NVIDIA_ICD
    for folder in ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib64"):
        lib = os.path.join(folder, "libnvidia-opencl.so.1")
        if os.path.exists(lib):
            icd = os.path.join(tempfile.mkdtemp(prefix="loopscape-icd-"), "nvidia.icd")
            with open(icd, "w") as f:
                f.write(lib + "\n")
            return icd
    return None


def matmul_program(n):
    with open(os.path.join(ROOT, "samples", "matmul.te")) as f:
        text = f.read()
    if "M, N, K = 1024, 1024, 1024" not in text:
        sys.exit("samples/matmul.te changed: its size line is not 'M, N, K = 1024, 1024, 1024'")
    return text.replace("M, N, K = 1024, 1024, 1024", f"M, N, K = {n}, {n}, {n}")


def conv_program(channels, width):
    with open(os.path.join(ROOT, "samples", "conv2d_nchw.te")) as f:
        text = f.read()
    for line in ("batch, in_channel, height, width = 1, 64, 56, 56", "out_channel, kernel, pad, stride = 64, 3, 1, 1"):
        if line not in text:
            sys.exit(f"samples/conv2d_nchw.te changed: it has no line '{line}'")
    text = text.replace("batch, in_channel, height, width = 1, 64, 56, 56",
                        f"batch, in_channel, height, width = 1, {channels}, {width}, {width}")
    return text.replace("out_channel, kernel, pad, stride = 64, 3, 1, 1", f"out_channel, kernel, pad, stride = {channels}, 3, 1, 1")


def read(path):
    with open(path) as f:
        return f.read()


def conv_trace(width):
    with open(CONV_TRACE) as f:
        text = f.read()
    if "sch.split(f, [None, 56])" not in text:
        sys.exit("samples/traces/conv2d_nchw_gpu.py changed: it has no 'sch.split(f, [None, 56])'")
    return text.replace("sch.split(f, [None, 56])", f"sch.split(f, [None, {width}])")


# How each target's host library prints the kernel time of a call (LOOPSCAPE_*_PROFILE=1).
KERNEL_TIME = {
    "opencl": r"opencl: kernel ([0-9.]+) ms \(profiling event\)",
    "cuda": r"cuda: kernel ([0-9.]+) ms \(CUDA events\)",
}


def run_loopscape(program, trace, target, repeat, verify, env):
    """(kernel ms from profiling or CUDA events or None, worker ms per call or None, output)."""
    with tempfile.TemporaryDirectory() as tmp:
        te = os.path.join(tmp, "program.te")
        with open(te, "w") as f:
            f.write(program)
        trace_file = os.path.join(tmp, "trace.py")
        with open(trace_file, "w") as f:
            f.write(trace)
        cmd = [CLI, "run", te, "--trace", trace_file, "--target", target, "--repeat", str(repeat), "--timeout", "600"]
        if verify:
            cmd.append("--verify")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = p.stdout + p.stderr
    if p.returncode != 0:
        return None, None, out
    events = [float(x) for x in re.findall(KERNEL_TIME[target], out)]
    lines = out.splitlines()
    worker = None
    for i, line in enumerate(lines):
        if line.strip().startswith("min ms") and i + 1 < len(lines):
            worker = float(lines[i + 1].split()[0])
    return (min(events) if events else None), worker, out


def time_cublas(n, repeat):
    """Minimum ms of one n x n x n SGEMM with cuBLAS, and which library called it; or
    (None, why)."""
    try:
        import torch

        if torch.cuda.is_available():
            torch.backends.cuda.matmul.allow_tf32 = False  # plain fp32, as the kernel
            a = torch.rand(n, n, device="cuda")
            b = torch.rand(n, n, device="cuda")
            for _ in range(3):
                torch.matmul(a, b)
            best = float("inf")
            for _ in range(max(repeat, 5)):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                torch.matmul(a, b)
                end.record()
                torch.cuda.synchronize()
                best = min(best, start.elapsed_time(end))
            return best, f"cuBLAS via PyTorch {torch.__version__} (TF32 off)"
    except ImportError:
        pass
    try:
        import cupy

        a = cupy.random.rand(n, n, dtype=cupy.float32)
        b = cupy.random.rand(n, n, dtype=cupy.float32)
        for _ in range(3):
            a @ b
        best = float("inf")
        for _ in range(max(repeat, 5)):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            a @ b
            end.record()
            end.synchronize()
            best = min(best, cupy.cuda.get_elapsed_time(start, end))
        return best, f"cuBLAS via CuPy {cupy.__version__}"
    except ImportError:
        return None, "neither PyTorch with CUDA nor CuPy is installed"


def time_cudnn(channels, width, repeat):
    """Minimum ms of the 3x3 convolution (padding 1) with cuDNN through PyTorch; or (None, why)."""
    try:
        import torch
    except ImportError:
        return None, "PyTorch is not installed"
    if not torch.cuda.is_available():
        return None, "PyTorch has no CUDA device"
    torch.backends.cudnn.allow_tf32 = False  # plain fp32, as the kernel
    torch.backends.cudnn.benchmark = True  # cuDNN picks its fastest algorithm
    x = torch.rand(1, channels, width, width, device="cuda")
    w = torch.rand(channels, channels, 3, 3, device="cuda")
    for _ in range(5):
        torch.nn.functional.conv2d(x, w, padding=1)
    best = float("inf")
    for _ in range(max(repeat, 10)):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.nn.functional.conv2d(x, w, padding=1)
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end))
    return best, f"cuDNN {torch.backends.cudnn.version()} via PyTorch {torch.__version__} (TF32 off)"


def gflops(flops, ms):
    return flops / (ms * 1e-3) / 1e9 if ms else None


# Each target's rows: its kernel timer, as printed in the row names.
TIMERS = {"opencl": "profiling events", "cuda": "CUDA events"}


def loopscape_rows(program, trace, repeat, verify, env, gpu):
    """The opencl rows and, on a GPU, the cuda rows of one program (a target that fails
    prints what it said instead of its rows); None when every target failed."""
    rows = []
    for target in ("opencl", "cuda") if gpu else ("opencl",):
        kernel_ms, worker_ms, out = run_loopscape(program, trace, target, repeat, verify, env)
        if kernel_ms is None and worker_ms is None:
            said = [line for line in out.splitlines() if line.startswith(("error", target + ": "))]
            print(f"loopscape {target} target: failed: " + (said[0] if said else out.strip()[-500:]))
            continue
        if verify:
            for line in out.splitlines():
                if line.startswith("output "):
                    print(f"  {target} {line}")
        rows += [(f"loopscape {target}, kernel ({TIMERS[target]})", kernel_ms),
                 (f"loopscape {target}, whole call (copies + launch)", worker_ms)]
    return rows or None


def print_rows(rows, flops):
    print(f"{'':64s} {'min ms':>10s} {'GFLOP/s':>10s}")
    for name, ms in rows:
        if ms is None:
            print(f"{name:64s} {'-':>10s} {'-':>10s}")
        else:
            print(f"{name:64s} {ms:10.3f} {gflops(flops, ms):10.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", choices=["matmul", "conv", "all"], default="all")
    ap.add_argument("--n", type=int, default=0, help="matrix size, a multiple of 128 (default 4096 with a GPU, 256 without)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--verify", action="store_true", help="also verify Loopscape's result")
    args = ap.parse_args()
    if not os.path.exists(CLI):
        sys.exit(f"{CLI} is not built")

    gpu = have_gpu()
    n = args.n or (4096 if gpu else 256)
    if n % 128:
        sys.exit("--n must be a multiple of 128 (the schedules' block tiles)")
    env = dict(os.environ, LOOPSCAPE_OPENCL_PROFILE="1", LOOPSCAPE_CUDA_PROFILE="1")
    if gpu and "nvidia" in os.environ.get("OCL_ICD_FILENAMES", ""):
        pass  # the environment already names NVIDIA's OpenCL driver (CUDA containers do)
    elif gpu:
        icd = nvidia_icd()
        if icd:
            env["OCL_ICD_VENDORS"] = icd
        else:
            print("no NVIDIA OpenCL driver found (no /etc/OpenCL/vendors/nvidia.icd, no libnvidia-opencl.so.1): "
                  "the opencl rows run on whatever platform the ICD loader finds")

    if not gpu:
        print("NO GPU HERE: the opencl target runs on PoCL, on the CPU. These numbers are a SMOKE TEST ONLY of the")
        print("GPU path (lowering, OpenCL C, host library, launch); they are not GPU performance.")
    failed = False
    if args.workload in ("matmul", "all"):
        rows = []
        for trace in MATMUL_TRACES:
            name = os.path.basename(trace)
            print(f"matmul {n} x {n} x {n} float32, schedule samples/traces/{name}")
            got = loopscape_rows(matmul_program(n), read(trace), args.repeat, args.verify, env, gpu)
            if got is None:
                failed = True
            else:
                rows += [(f"{label} [{name[:-3]}]", ms) for label, ms in got]
        if gpu:
            ms, what = time_cublas(n, args.repeat)
            rows.append((what if ms else f"cuBLAS: not measured ({what})", ms))
        print_rows(rows, 2.0 * n * n * n)
    if args.workload in ("conv", "all"):
        for channels, width in CONV_LAYERS if gpu else CONV_LAYERS[:1]:
            print(f"\nconv2d 3x3 pad 1, 1 x {channels} x {width} x {width} -> {channels} channels, float32, "
                  f"schedule samples/traces/conv2d_nchw_gpu.py (copy split {width})")
            rows = loopscape_rows(conv_program(channels, width), conv_trace(width), args.repeat, args.verify, env, gpu)
            if rows is None:
                failed = True
                continue
            if gpu:
                ms, what = time_cudnn(channels, width, args.repeat)
                rows.append((what if ms else f"cuDNN: not measured ({what})", ms))
            print_rows(rows, 2.0 * channels * width * width * channels * 9)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
