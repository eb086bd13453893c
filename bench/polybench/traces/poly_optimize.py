# bench/polybench.py's "poly_optimize" row: the polyhedral optimisation step of issue 15
# (scheduling, tiling, parallel and vector marks chosen by Loopscape itself).
from tvm import tir


def apply_trace(sch: tir.Schedule) -> None:
    sch.poly_optimize()
