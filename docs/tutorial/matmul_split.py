# docs/tutorial.md, step 1: split the row loop i into blocks of 4 rows.
def apply_trace(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i_0, i_1 = sch.split(i, factors=[None, 4])
