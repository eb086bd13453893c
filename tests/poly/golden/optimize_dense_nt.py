# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 48), "float32"), W: T.Buffer((64, 48), "float32"), C: T.Buffer((32, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    W_global = T.alloc_buffer((48, 64))
    for ax0_0 in T.parallel(2):
        for ax1_0, ax1_1, ax0_1 in T.grid(2, 24, 32):
            with T.block("W_global"):
                v0 = T.axis.spatial(64, ax0_0 * 32 + ax0_1)
                v1 = T.axis.spatial(48, ax1_0 * 24 + ax1_1)
                T.reads(W[v0, v1])
                T.writes(W_global[v1, v0])
                W_global[v1, v0] = W[v0, v1]
    for i_0 in T.parallel(2):
        for j_0, i_1_0, j_1_0 in T.grid(2, 4, 2):
            for i_1_1_init in T.unroll(4):
                for j_1_1_init in T.vectorized(16):
                    with T.block("C_init"):
                        v_i = T.axis.spatial(32, i_0 * 16 + i_1_0 * 4 + i_1_1_init)
                        v_j = T.axis.spatial(64, j_0 * 32 + j_1_0 * 16 + j_1_1_init)
                        T.reads()
                        T.writes(C[v_i, v_j])
                        C[v_i, v_j] = T.float32(0)
            for k_1_1 in range(48):
                for i_1_1 in T.unroll(4):
                    for j_1_1 in T.vectorized(16):
                        with T.block("C_update"):
                            v_i = T.axis.spatial(32, i_0 * 16 + i_1_0 * 4 + i_1_1)
                            v_j = T.axis.spatial(64, j_0 * 32 + j_1_0 * 16 + j_1_1)
                            v_k = T.axis.reduce(48, k_1_1)
                            T.reads(C[v_i, v_j], A[v_i, v_k], W_global[v_k, v_j])
                            T.writes(C[v_i, v_j])
                            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * W_global[v_k, v_j]
