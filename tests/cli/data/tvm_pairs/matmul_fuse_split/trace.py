def apply_trace(sch):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    f = sch.fuse(i, j)
    f_0, f_1 = sch.split(f, factors=[None, 64])
    sch.unroll(k)
