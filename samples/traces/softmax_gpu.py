# Applies to samples/softmax.te on a GPU target (opencl, cuda): one thread block per row
# (blockIdx.x), 128 threads (threadIdx.x) per row. The exponentials are inlined; the row
# maximum and the row sum are computed at the row loop into "shared" buffers of one element
# (the lowering shrinks them) as cross-thread reductions: their reduce loops are split by
# 128 and the inner part bound to threadIdx.x, so each thread reduces 8 columns into a
# local value, then the 128 values are combined in a shared-memory tree with a barrier
# between its steps (core/codegen/lower_cross_thread.h); thread 0 writes the result, and a
# barrier makes it visible to the other threads, which then normalise the row's columns.
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
i_m, k_m = sch.get_loops(b0)
k_m0, k_m1 = sch.split(k_m, [None, 128])
sch.bind(k_m1, "threadIdx.x")
i_s, k_s = sch.get_loops(b2)
k_s0, k_s1 = sch.split(k_s, [None, 128])
sch.bind(k_s1, "threadIdx.x")
