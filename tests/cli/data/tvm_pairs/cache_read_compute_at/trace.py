def apply_trace(sch):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    b1 = sch.cache_read(b0, 0, "global")
    sch.compute_at(b1, i)
