#!/usr/bin/env python3
"""GPU matmul: Loopscape's samples/traces/matmul_gpu.py schedule (shared-memory tiling,
16x16 threads, 4x4 register tile, float4 write-back) through the `opencl` target (and the
`cuda` target where it can run), against cuBLAS (through PyTorch or CuPy, whichever has
CUDA) on the same machine.

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
  python3 bench/gpu.py [--n 4096] [--repeat 5] [--verify]
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
TRACE = os.path.join(ROOT, "samples", "traces", "matmul_gpu.py")
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


def matmul_program(n):
    with open(os.path.join(ROOT, "samples", "matmul.te")) as f:
        text = f.read()
    if "M, N, K = 1024, 1024, 1024" not in text:
        sys.exit("samples/matmul.te changed: its size line is not 'M, N, K = 1024, 1024, 1024'")
    return text.replace("M, N, K = 1024, 1024, 1024", f"M, N, K = {n}, {n}, {n}")


# How each target's host library prints the kernel time of a call (LOOPSCAPE_*_PROFILE=1).
KERNEL_TIME = {
    "opencl": r"opencl: kernel ([0-9.]+) ms \(profiling event\)",
    "cuda": r"cuda: kernel ([0-9.]+) ms \(CUDA events\)",
}


def run_loopscape(n, target, repeat, verify, env):
    """(kernel ms from profiling or CUDA events or None, worker ms per call or None, output)."""
    with tempfile.TemporaryDirectory() as tmp:
        te = os.path.join(tmp, "matmul.te")
        with open(te, "w") as f:
            f.write(matmul_program(n))
        cmd = [CLI, "run", te, "--trace", TRACE, "--target", target, "--repeat", str(repeat), "--timeout", "600"]
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


def gflops(n, ms):
    return 2.0 * n * n * n / (ms * 1e-3) / 1e9 if ms else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=0, help="matrix size (default 4096 with a GPU, 256 without)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--verify", action="store_true", help="also verify Loopscape's result")
    args = ap.parse_args()
    if not os.path.exists(CLI):
        sys.exit(f"{CLI} is not built")

    gpu = have_gpu()
    n = args.n or (4096 if gpu else 256)
    if n % 64:
        sys.exit("--n must be a multiple of 64 (the schedule's block tile)")
    env = dict(os.environ, LOOPSCAPE_OPENCL_PROFILE="1", LOOPSCAPE_CUDA_PROFILE="1")
    if gpu and os.path.exists(NVIDIA_ICD):
        env["OCL_ICD_VENDORS"] = NVIDIA_ICD

    print(f"matmul {n} x {n} x {n} float32, schedule samples/traces/matmul_gpu.py")
    if not gpu:
        print("NO GPU HERE: the opencl target runs on PoCL, on the CPU. These numbers are a SMOKE TEST ONLY of the")
        print("GPU path (lowering, OpenCL C, host library, launch); they are not GPU performance.")
    kernel_ms, worker_ms, out = run_loopscape(n, "opencl", args.repeat, args.verify, env)
    if kernel_ms is None and worker_ms is None:
        print("loopscape opencl: failed\n" + out)
        return 1
    if args.verify:
        for line in out.splitlines():
            if line.startswith("output "):
                print("  " + line)
    rows = [("loopscape opencl, kernel (profiling events)", kernel_ms),
            ("loopscape opencl, whole call (copies + launch)", worker_ms)]
    if gpu:
        cuda_kernel_ms, cuda_worker_ms, cuda_out = run_loopscape(n, "cuda", args.repeat, args.verify, env)
        if cuda_kernel_ms is None and cuda_worker_ms is None:
            said = [line for line in cuda_out.splitlines() if line.startswith(("error", "cuda: "))]
            print("loopscape cuda target: failed: " + (said[0] if said else cuda_out.strip()[-500:]))
        else:
            if args.verify:
                for line in cuda_out.splitlines():
                    if line.startswith("output "):
                        print("  cuda " + line)
            rows += [("loopscape cuda, kernel (CUDA events)", cuda_kernel_ms),
                     ("loopscape cuda, whole call (copies + launch)", cuda_worker_ms)]
        ms, what = time_cublas(n, args.repeat)
        rows.append((what if ms else f"cuBLAS: not measured ({what})", ms))
    print(f"{'':48s} {'min ms':>10s} {'GFLOP/s':>10s}")
    for name, ms in rows:
        if ms is None:
            print(f"{name:48s} {'-':>10s} {'-':>10s}")
        else:
            print(f"{name:48s} {ms:10.3f} {gflops(n, ms):10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
