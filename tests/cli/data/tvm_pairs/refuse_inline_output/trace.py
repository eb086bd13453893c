def apply_trace(sch):
    b0 = sch.get_block("C")
    sch.compute_inline(b0)
