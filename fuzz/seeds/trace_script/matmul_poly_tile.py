# Hand-made fuzz seed: polyhedral tiling, marks and TIR steps after it.
from tvm import tir


def apply_trace(sch: tir.Schedule) -> None:
    sch.poly_tile(band="i", sizes=[32, 32])
    sch.poly_mark(band="i_0", member=0, kind="parallel")
    sch.poly_mark(band="i_0", member=1, kind="unroll")
    block = sch.get_block("C")
    loops = sch.get_loops(block)
    sch.reorder(loops[-1], loops[-2])
    sch.vectorize(loops[-2])
