def apply_trace(sch):
    b0 = sch.get_block("B")
    n, c, w = sch.get_loops(b0)
    w_0, w_1 = sch.split(w, factors=[None, 8])
    sch.reorder(c, n, w_0, w_1)
    sch.parallel(c)
