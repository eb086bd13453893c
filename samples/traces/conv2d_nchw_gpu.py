# Applies to samples/conv2d_nchw.te on a GPU target (opencl): one thread block per output
# row (blockIdx.x) and group of 4 output channels (blockIdx.y), 4 x 56 threads (channel,
# column); the padding is inlined, each thread accumulates its output in a "local"
# register, and the weights of each pair of input channels (4 x 2 x 3 x 3) are copied into
# shared memory by the threads together before they are used (barriers placed by the
# lowering). The copy loop is split by 56, the threadIdx.x extent, so a copy of another
# width needs another factor.
# loopscape-cli run samples/conv2d_nchw.te --trace samples/traces/conv2d_nchw_gpu.py --target opencl --verify
sch.compute_inline(sch.get_block("pad_temp"))
c = sch.get_block("conv2d_nchw")
nn, ff, yy, xx, rc, ry, rx = sch.get_loops(c)
ff_0, ff_1 = sch.split(ff, [None, 4])
rc_0, rc_1 = sch.split(rc, [None, 2])
sch.reorder(nn, ff_0, yy, rc_0, ff_1, xx, rc_1, ry, rx)
n_ff_0 = sch.fuse(nn, ff_0)
sch.bind(n_ff_0, "blockIdx.y")
sch.bind(yy, "blockIdx.x")
sch.bind(ff_1, "threadIdx.y")
sch.bind(xx, "threadIdx.x")
c_local = sch.cache_write(c, 0, "local")
sch.reverse_compute_at(c_local, yy)
_, _, ax1, ax3 = sch.get_loops(c_local)
sch.bind(ax1, "threadIdx.y")
sch.bind(ax3, "threadIdx.x")
w_shared = sch.cache_read(c, 1, "shared")
sch.compute_at(w_shared, rc_0)
_, _, _, ax0, ax1, ax2, ax3 = sch.get_loops(w_shared)
f = sch.fuse(ax0, ax1, ax2, ax3)
f_0, f_1 = sch.split(f, [None, 56])
sch.bind(f_1, "threadIdx.x")
