# Applies to samples/matmul.te: tile i and j by 32, move the reduction loop k outside the
# inner tiles, parallelize the outer i tile and vectorize the inner j tile.
# loopscape-cli check samples/matmul.te --trace samples/traces/matmul_tile.py
from tvm import tir


def apply_trace(sch: tir.Schedule) -> None:
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i_0, i_1 = sch.split(i, factors=[None, 32])
    j_0, j_1 = sch.split(j, factors=[None, 32])
    sch.reorder(i_0, j_0, k, i_1, j_1)
    sch.parallel(i_0)
    sch.vectorize(j_1)
