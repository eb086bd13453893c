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
