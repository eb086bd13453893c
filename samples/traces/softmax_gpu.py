# Applies to samples/softmax.te on a GPU target (opencl): one thread block per row
# (blockIdx.x), 128 threads (threadIdx.x) normalising the row's 1024 columns. The
# exponentials are inlined; the row maximum and the row sum are computed at the row loop
# into "shared" buffers of one element (the lowering shrinks them), by thread 0 of the
# block (a statement outside the threadIdx loop runs once per block, as in the serial
# program), and a barrier makes them visible to the other threads. The two reductions are
# not cross-thread reductions: `bind` refuses reduction loops (TODO(#18)).
# loopscape-cli run samples/softmax.te --trace samples/traces/softmax_gpu.py --target opencl --verify
b0 = sch.get_block("T_softmax_maxelem")
b1 = sch.get_block("T_softmax_exp")
b2 = sch.get_block("T_softmax_expsum")
b3 = sch.get_block("T_softmax_norm")
sch.compute_inline(b1)
i, j = sch.get_loops(b3)
j_0, j_1 = sch.split(j, [None, 128])
sch.compute_at(b2, i)
sch.compute_at(b0, i)
sch.set_scope(b0, 0, "shared")
sch.set_scope(b2, 0, "shared")
sch.bind(i, "blockIdx.x")
sch.bind(j_1, "threadIdx.x")
