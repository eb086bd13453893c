# bench/polybench.py's "poly_auto" row: the isl scheduler with maximal fusion, then the
# outermost band tiled 32 x 32 x 32 (a band with fewer members uses the first entries).
from tvm import tir


def apply_trace(sch: tir.Schedule) -> None:
    sch.poly_auto(fusion="max", tile=[32, 32, 32])
