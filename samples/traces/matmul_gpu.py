# Applies to samples/matmul.te on a GPU target (opencl, which runs on PoCL without a GPU):
# the canonical shared-memory GEMM. Each thread block computes a 64 x 64 tile of C with
# 16 x 16 threads, each thread a 4 x 4 register tile (C_local, scope "local"); the k loop
# is tiled by 16 and each k tile of A and B is copied into shared memory (A_shared,
# B_shared) by all threads of the block together (fused, split and bound copy loops).
# The lowering shrinks the caches to their tiles (64 x 16, 16 x 64, 4 x 4) and places the
# barriers (after the copies, and before the next k tile overwrites them). Each thread
# writes its 4 x 4 tile back one row at a time as a float4 (the vectorized ax1_1: a
# vload4/vstore4 in OpenCL, a float4 load and store in CUDA).
# loopscape-cli print samples/matmul.te --trace samples/traces/matmul_gpu.py --format opencl
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i_0, i_1, i_2 = sch.split(i, [None, 16, 4])
j_0, j_1, j_2 = sch.split(j, [None, 16, 4])
k_0, k_1 = sch.split(k, [None, 16])
sch.reorder(i_0, j_0, k_0, i_1, j_1, k_1, i_2, j_2)
sch.bind(i_0, "blockIdx.y")
sch.bind(j_0, "blockIdx.x")
sch.bind(i_1, "threadIdx.y")
sch.bind(j_1, "threadIdx.x")
c_local = sch.cache_write(b, 0, "local")
sch.reverse_compute_at(c_local, j_0)
_, _, ax0, ax1 = sch.get_loops(c_local)
ax0_0, ax0_1 = sch.split(ax0, [16, None])
ax1_0, ax1_1 = sch.split(ax1, [16, None])
sch.reorder(ax0_0, ax1_0, ax0_1, ax1_1)
sch.bind(ax0_0, "threadIdx.y")
sch.bind(ax1_0, "threadIdx.x")
sch.vectorize(ax1_1)
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
