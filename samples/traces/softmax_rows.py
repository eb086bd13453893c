# Applies to samples/softmax.te: compute the exponentials inside the row loop of the
# normalisation, parallelize the rows of every stage and split the normalised columns
# by 64.
b0 = sch.get_block("T_softmax_maxelem")
b1 = sch.get_block("T_softmax_exp")
b2 = sch.get_block("T_softmax_expsum")
b3 = sch.get_block("T_softmax_norm")
sch.parallel(sch.get_loops(b0)[0])
sch.parallel(sch.get_loops(b1)[0])
sch.parallel(sch.get_loops(b2)[0])
i, j = sch.get_loops(b3)
j_0, j_1 = sch.split(j, [None, 64])
sch.parallel(i)
sch.vectorize(j_1)
