# docs/tutorial.md, step 2: split i and j by 4 and reorder: a 4 x 4 tile of C is finished
# before the next one starts (the reduction k runs inside the tile's rows).
def apply_trace(sch):
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i_0, i_1 = sch.split(i, factors=[None, 4])
    j_0, j_1 = sch.split(j, factors=[None, 4])
    sch.reorder(i_0, j_0, i_1, j_1, k)
