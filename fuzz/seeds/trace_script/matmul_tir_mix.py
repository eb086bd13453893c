# Hand-made fuzz seed: TIR primitives the sample traces do not use.
from tvm import tir


def apply_trace(sch: tir.Schedule) -> None:
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    v0, v1 = sch.sample_perfect_tile(i, n=2, max_innermost_factor=64, decision=[32, 32])
    i_0, i_1 = sch.split(i, factors=[v0, v1])
    k_0, k_1 = sch.split(k, factors=[None, 4], preserve_unit_iters=True)
    rf = sch.rfactor(k_1, factor_axis=0)
    b1 = sch.cache_read(b0, 0, "global")
    b2 = sch.cache_write(b0, 0, "local")
    sch.reverse_compute_at(b2, i_0, preserve_unit_loops=True)
    sch.annotate(i_0, ann_key="pragma_auto_unroll_max_step", ann_val=16)
    sch.storage_align(b1, 0, axis=1, factor=8, offset=1)
    sch.transform_layout(b0, ("write", 0), lambda i, j: (i // 16, j, i % 16))
    sch.blockize(i_1)
    sch.unannotate(i_0, "pragma_auto_unroll_max_step")
    sch.loop_partition(j, factors=[None, 2])
