# Applies to samples/matmul.te on a GPU target (cuda, opencl): the larger register tile of
# the shared-memory GEMM. Each thread block computes a 128 x 128 tile of C with 16 x 16
# threads, each thread an 8 x 8 register tile (C_local: 64 accumulators, about 100
# registers); the k loop is tiled by 8, and each k tile of A (128 x 8) and B (8 x 128) is
# copied into shared memory by all threads together, 4 elements each. The initialisation
# of C_local is taken out of the k loop (decompose_reduction), and each thread writes its
# tile back as two float4 per row. Against samples/traces/matmul_gpu.py (64 x 64, 4 x 4):
# twice the arithmetic per shared-memory load; M and N must be multiples of 128, K of 8.
# loopscape-cli run samples/matmul.te --trace samples/traces/matmul_gpu_128.py --target cuda --verify
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1, i_2 = sch.split(i, [None, 16, 8])
j_0, j_1, j_2 = sch.split(j, [None, 16, 8])
k_0, k_1 = sch.split(k, [None, 8])
sch.reorder(i_0, j_0, k_0, i_1, j_1, k_1, i_2, j_2)
sch.bind(i_0, "blockIdx.y")
sch.bind(j_0, "blockIdx.x")
sch.bind(i_1, "threadIdx.y")
sch.bind(j_1, "threadIdx.x")
c_local = sch.cache_write(b, 0, "local")
sch.reverse_compute_at(c_local, j_0)
_, _, ax0, ax1 = sch.get_loops(c_local)
ax0_0, ax0_1 = sch.split(ax0, [16, None])
ax1_0, ax1_1, ax1_2 = sch.split(ax1, [16, 2, 4])
sch.reorder(ax0_0, ax1_0, ax0_1, ax1_1, ax1_2)
sch.bind(ax0_0, "threadIdx.y")
sch.bind(ax1_0, "threadIdx.x")
sch.vectorize(ax1_2)
a_shared = sch.cache_read(b, 0, "shared")
sch.compute_at(a_shared, k_0)
_, _, _, ax0, ax1 = sch.get_loops(a_shared)
a_0, a_1, a_2 = sch.split(sch.fuse(ax0, ax1), [None, 16, 16])
sch.bind(a_1, "threadIdx.y")
sch.bind(a_2, "threadIdx.x")
b_shared = sch.cache_read(b, 1, "shared")
sch.compute_at(b_shared, k_0)
_, _, _, ax0, ax1 = sch.get_loops(b_shared)
b_0, b_1, b_2 = sch.split(sch.fuse(ax0, ax1), [None, 16, 16])
sch.bind(b_1, "threadIdx.y")
sch.bind(b_2, "threadIdx.x")
sch.decompose_reduction(b, k_0)
