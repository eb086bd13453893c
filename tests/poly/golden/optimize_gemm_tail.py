# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 12), "float32"), B: T.Buffer((12, 25), "float32"), C: T.Buffer((16, 25), "float32"), C_out: T.Buffer((16, 25), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    AB = T.alloc_buffer((16, 25))
    for i_0 in T.parallel(2):
        for j_1_0 in range(3):
            for i_1_1_init in T.unroll(8):
                for j_1_1_init in T.vectorized(8):
                    with T.block("AB_init"):
                        v_i = T.axis.spatial(16, i_0 * 8 + i_1_1_init)
                        v_j = T.axis.spatial(25, j_1_0 * 8 + j_1_1_init)
                        T.reads()
                        T.writes(AB[v_i, v_j])
                        AB[v_i, v_j] = T.float32(0)
            for k_1_1 in range(12):
                for i_1_1 in T.unroll(8):
                    for j_1_1 in T.vectorized(8):
                        with T.block("AB_update"):
                            v_i = T.axis.spatial(16, i_0 * 8 + i_1_1)
                            v_j = T.axis.spatial(25, j_1_0 * 8 + j_1_1)
                            v_k = T.axis.reduce(12, k_1_1)
                            T.reads(AB[v_i, v_j], A[v_i, v_k], B[v_k, v_j])
                            T.writes(AB[v_i, v_j])
                            AB[v_i, v_j] = AB[v_i, v_j] + T.float32(1.5) * A[v_i, v_k] * B[v_k, v_j]
                        with T.block("C_out"):
                            v_i = T.axis.spatial(16, i_0 * 8 + i_1_1)
                            v_j = T.axis.spatial(25, j_1_0 * 8 + j_1_1)
                            T.where(k_1_1 == 11)
                            T.reads(C[v_i, v_j], AB[v_i, v_j])
                            T.writes(C_out[v_i, v_j])
                            C_out[v_i, v_j] = T.float32(1.2) * C[v_i, v_j] + AB[v_i, v_j]
    for i_0 in T.parallel(2):
        for i_1 in range(8):
            with T.block("AB_tail_init"):
                v_i = T.axis.spatial(16, i_0 * 8 + i_1)
                v_j = T.axis.spatial(25, 24)
                T.reads()
                T.writes(AB[v_i, v_j])
                AB[v_i, v_j] = T.float32(0)
            for k_1 in range(12):
                with T.block("AB_tail_update"):
                    v_i = T.axis.spatial(16, i_0 * 8 + i_1)
                    v_j = T.axis.spatial(25, 24)
                    v_k = T.axis.reduce(12, k_1)
                    T.reads(AB[v_i, v_j], A[v_i, v_k], B[v_k, v_j])
                    T.writes(AB[v_i, v_j])
                    AB[v_i, v_j] = AB[v_i, v_j] + T.float32(1.5) * A[v_i, v_k] * B[v_k, v_j]
            with T.block("C_out_tail"):
                v_i = T.axis.spatial(16, i_0 * 8 + i_1)
                v_j = T.axis.spatial(25, 24)
                T.reads(C[v_i, v_j], AB[v_i, v_j])
                T.writes(C_out[v_i, v_j])
                C_out[v_i, v_j] = T.float32(1.2) * C[v_i, v_j] + AB[v_i, v_j]
