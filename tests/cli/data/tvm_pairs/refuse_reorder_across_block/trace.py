def apply_trace(sch):
    b0 = sch.get_block("B")
    b1 = sch.get_block("C")
    sch.compute_at(b0, sch.get_loops(b1)[0])
    i, j = sch.get_loops(b1)
    sch.reorder(j, i)
