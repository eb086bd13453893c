def apply_trace(sch):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    i_0, i_1 = sch.split(i, factors=[None, 16])
    j_0, j_1 = sch.split(j, factors=[None, 16])
    sch.reorder(i_0, j_0, k, i_1, j_1)
    sch.parallel(i_0)
    sch.vectorize(j_1)
