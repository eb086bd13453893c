# PolyBench/C 4.2 seidel-2d: TSTEPS in-place Gauss-Seidel sweeps of a 9-point stencil on an
# N x N grid, in float32 (PolyBench defaults to double). TVMScript, not .te: the in-place
# sweep reads values of the same sweep (A[i-1][*] and A[i][j-1] are already updated),
# which te.scan cannot express (an update may read earlier steps only).
# sizes: MEDIUM TSTEPS=100 N=400; LARGE TSTEPS=500 N=2000; SMALL TSTEPS=40 N=120; MINI TSTEPS=20 N=40
# literals: 100=TSTEPS 400=N 398=N-2
# TVMScript has no constants: a size appears as its literal (the line above lists them for
# bench/polybench.py and tests/polybench, which rewrite them for other sizes).
# Formulation: "copy" copies the input A into the output B (PolyBench updates A in place;
# a TVMScript parameter that is only written is an output without input values), then
# block "seidel" is PolyBench's sweep on B, exactly: same order of the nine terms, / 9.0.
# The t, i, j iterators are spatial ("SSS"; T.axis.scan and opaque iterators are not read
# yet): the dependences between instances are found by the polyhedral analysis from the
# accesses, not from the iterator kinds. T.reads is written out: left out, the CLI infers
# an empty read set for a block that also writes the buffer it reads.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((400, 400), "float32"), B: T.Buffer((400, 400), "float32")):
    for i, j in T.grid(400, 400):
        with T.block("copy"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj]
    for t, i, j in T.grid(100, 398, 398):
        with T.block("seidel"):
            vt, vi, vj = T.axis.remap("SSS", [t, i, j])
            T.reads(B[vi:vi + 3, vj:vj + 3])
            T.writes(B[vi + 1, vj + 1])
            B[vi + 1, vj + 1] = (B[vi, vj] + B[vi, vj + 1] + B[vi, vj + 2] + B[vi + 1, vj] + B[vi + 1, vj + 1] + B[vi + 1, vj + 2] + B[vi + 2, vj] + B[vi + 2, vj + 1] + B[vi + 2, vj + 2]) / T.float32(9.0)
