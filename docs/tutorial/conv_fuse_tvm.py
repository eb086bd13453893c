# docs/tutorial.md: conv + bias + ReLU fused the TVM way (samples/conv_bias_relu.te):
# inline the padding and the bias add, and compute the ReLU of each output channel right
# after its convolution (reverse_compute_at under the conv's ff loop).
def apply_trace(sch):
    sch.compute_inline(sch.get_block("pad_temp"))
    sch.compute_inline(sch.get_block("T_add"))
    conv = sch.get_block("conv2d_nchw")
    nn, ff, yy, xx, rc, ry, rx = sch.get_loops(conv)
    sch.reverse_compute_at(sch.get_block("T_relu"), ff)
