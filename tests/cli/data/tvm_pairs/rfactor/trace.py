def apply_trace(sch):
    b0 = sch.get_block("B")
    i, k = sch.get_loops(b0)
    k_0, k_1 = sch.split(k, factors=[None, 16])
    b1 = sch.rfactor(k_1, 0)
