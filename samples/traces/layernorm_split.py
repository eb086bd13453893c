# Applies to samples/layernorm.te: split the reductions over the 768 columns by 64,
# parallelize the rows and vectorize the inner columns of the output stage.
b0 = sch.get_block("T_mean")
b1 = sch.get_block("T_var")
b2 = sch.get_block("T_layer_norm")
i0, k = sch.get_loops(b0)
k_0, k_1 = sch.split(k, factors=[None, 64])
sch.parallel(i0)
i1, kv = sch.get_loops(b1)
sch.parallel(i1)
i2, j = sch.get_loops(b2)
j_0, j_1 = sch.split(j, factors=[None, 64])
sch.parallel(i2)
sch.vectorize(j_1)
