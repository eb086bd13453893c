# Applies to samples/dense_dynamic.te: split the dynamic batch loop by 8 and the 1000
# output units by 16 (a non-divisible split: the block gets a T.where predicate).
b0 = sch.get_block("T_matmul_NT")
i, j, k = sch.get_loops(b0)
i_0, i_1 = sch.split(i, [None, 8])
j_0, j_1 = sch.split(j, [None, 16])
sch.reorder(i_0, j_0, k, i_1, j_1)
sch.parallel(i_0)
