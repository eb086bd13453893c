def apply_trace(sch):
    b0 = sch.get_block("B")
    b1 = sch.get_block("C")
    i, j = sch.get_loops(b1)
    sch.compute_at(b0, i)
