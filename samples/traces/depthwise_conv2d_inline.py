# Applies to samples/depthwise_conv2d.te: inline the padding, parallelize the channels
# and split the output rows by 16, unrolling the 3x3 window.
sch.compute_inline(sch.get_block("PaddedInput"))
b, c, i, j, di, dj = sch.get_loops(sch.get_block("DepthwiseConv2d"))
j_0, j_1 = sch.split(j, factors=[None, 16])
sch.parallel(c)
sch.unroll(di)
sch.unroll(dj)
