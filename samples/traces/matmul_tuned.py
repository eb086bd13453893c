# Applies to samples/matmul.te: the hand-tuned CPU schedule of the codegen benchmark
# (bench/README.md has what it reaches against OpenBLAS sgemm).
#  * B is packed once per call into 32-column panels, B_global[j // 32, k, j % 32], so
#    that the inner kernel reads one contiguous 128-byte row of the panel per k;
#  * C is tiled 8 x 32 for registers (i_2 x j_1: 8 rows of two 16-lane zmm vectors, 16
#    accumulators that LLVM keeps in registers across the k loop) and 64 rows x 32
#    columns for the caches (the 32 x 1024 panel of B_global, 128 KiB, stays in L2 while
#    the 8 row blocks of i_1 use it); the 16 blocks of 64 rows run in parallel;
#  * decompose_reduction puts the zero-initialisation of the 8 x 32 tile before the k
#    loop, so the inner loop is only loads, broadcasts and multiply-adds (FMAs when the
#    kernel is built with fast-math).
# loopscape-cli print samples/matmul.te --trace samples/traces/matmul_tuned.py --format asm --target cpu-llvm
from tvm import tir


def apply_trace(sch: tir.Schedule) -> None:
    b0 = sch.get_block("C")
    b1 = sch.cache_read(b0, 1, "global")
    sch.transform_layout(b1, ("write", 0), lambda k, j: (j // 32, k, j % 32))
    i, j, k = sch.get_loops(b0)
    i_0, i_1, i_2 = sch.split(i, factors=[None, 8, 8])
    j_0, j_1 = sch.split(j, factors=[None, 32])
    sch.reorder(i_0, j_0, i_1, k, i_2, j_1)
    sch.parallel(i_0)
    sch.unroll(i_2)
    sch.vectorize(j_1)
    sch.decompose_reduction(b0, k)
    pk, pj = sch.get_loops(b1)
    pj_0, pj_1 = sch.split(pj, factors=[None, 32])
    sch.reorder(pj_0, pk, pj_1)
    sch.parallel(pj_0)
    sch.vectorize(pj_1)
