# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0 in T.parallel(4):
        for i_1_0_init, j_1_0_init in T.grid(4, 4):
            for i_1_1_init in T.unroll(4):
                for j_1_1_init in T.vectorized(16):
                    with T.block("C_init"):
                        v_i = T.axis.spatial(64, i_0 * 16 + i_1_0_init * 4 + i_1_1_init)
                        v_j = T.axis.spatial(64, j_1_0_init * 16 + j_1_1_init)
                        T.reads()
                        T.writes(C[v_i, v_j])
                        C[v_i, v_j] = T.float32(0)
        for k_0, i_1_0, j_1_0, k_1_1 in T.grid(2, 4, 4, 32):
            for i_1_1 in T.unroll(4):
                for j_1_1 in T.vectorized(16):
                    with T.block("C_update"):
                        v_i = T.axis.spatial(64, i_0 * 16 + i_1_0 * 4 + i_1_1)
                        v_j = T.axis.spatial(64, j_1_0 * 16 + j_1_1)
                        v_k = T.axis.reduce(64, k_0 * 32 + k_1_1)
                        T.reads(C[v_i, v_j], A[v_i, v_k], B[v_k, v_j])
                        T.writes(C[v_i, v_j])
                        C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]

# decisions
#   band (i, j, k): permutable, coincident: i, j
#   cache tile 16 x 64 x 32: 14 KiB per tile (L2 32 KiB)
#   innermost: j vectorized by 16 (contiguous accesses; 8 lanes of 4-byte elements)
#   register tile: k outside, i unrolled by 4 and jammed: 8 vector accumulators of 16 registers; strip over k: 3 KiB (L1 8 KiB)
#   parallel: the tile loop of i

# from tvm import tir
sch.poly_optimize(fusion="max", tile=[], unroll_jam=[], parallel=True, vectorize=True, machine="l1=8K,l2=32K,l3=8M,vector=32,registers=16", decision=[[16, 64, 32, 4, 16, 32]])
