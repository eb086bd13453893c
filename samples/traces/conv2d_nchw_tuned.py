# Applies to samples/conv2d_nchw.te (the ResNet-18 3x3 layer): the hand-tuned CPU
# schedule of the codegen benchmark (bench/README.md has what it reaches against oneDNN).
#  * pad_temp stays a stage of its own (64 x 58 x 58, written once per call, 1/1000 of
#    the work), parallel over channels: computed at a tile of the convolution it would be
#    recomputed per tile, and under the parallel loop two threads would write the same
#    halo rows; inlined, every inner-loop load would carry the bounds test;
#  * the output is tiled 4 channels x 4 rows x 8 columns for registers (ff_1 x yy_1 x
#    xx_1: 16 accumulator vectors of 8 lanes, xx_1 vectorized since 56 = 7 x 8; on this
#    Zen 4 a 256-bit FMA has the same throughput per lane as a 512-bit one), the
#    reduction rc, ry, rx runs around that tile (ry and rx unrolled: the 4 output rows
#    read 6 input rows per rc, shifted by rx), each weight is
#    broadcast once and used for 4 row vectors; the 16 blocks of 4 output channels run in
#    parallel. (Measured alternatives: 8 x 2 x 8 reached about 70 % of this one, 4 x 7 x 8
#    (28 accumulators) about 55 %, 8 x 1 x 28-lane vectors about 25 %.)
#  * decompose_reduction zero-initialises the tile before the rc loop.
# loopscape-cli print samples/conv2d_nchw.te --trace samples/traces/conv2d_nchw_tuned.py --format asm --target cpu-llvm
from tvm import tir


def apply_trace(sch: tir.Schedule) -> None:
    pad = sch.get_block("pad_temp")
    conv = sch.get_block("conv2d_nchw")
    i0, i1, i2, i3 = sch.get_loops(pad)
    sch.parallel(i1)
    nn, ff, yy, xx, rc, ry, rx = sch.get_loops(conv)
    ff_0, ff_1 = sch.split(ff, factors=[None, 4])
    yy_0, yy_1 = sch.split(yy, factors=[None, 4])
    xx_0, xx_1 = sch.split(xx, factors=[None, 8])
    sch.reorder(ff_0, yy_0, xx_0, rc, ry, rx, ff_1, yy_1, xx_1)
    sch.parallel(ff_0)
    sch.unroll(ry)
    sch.unroll(rx)
    sch.unroll(ff_1)
    sch.unroll(yy_1)
    sch.vectorize(xx_1)
    sch.decompose_reduction(conv, rc)
