# Applies to samples/conv2d_nchw.te: inline the padding stage into the convolution,
# split the output channels by 16 and put the reduction over input channels outside the
# spatial loops.
b0 = sch.get_block("pad_temp")
b1 = sch.get_block("conv2d_nchw")
sch.compute_inline(b0)
nn, ff, yy, xx, rc, ry, rx = sch.get_loops(b1)
ff_0, ff_1 = sch.split(ff, [None, 16])
sch.reorder(nn, ff_0, rc, yy, xx, ry, rx, ff_1)
sch.parallel(ff_0)
