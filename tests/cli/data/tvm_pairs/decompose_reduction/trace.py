def apply_trace(sch):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.reorder(i, k, j)
    sch.decompose_reduction(b0, k)
