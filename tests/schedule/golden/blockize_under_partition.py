# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((2, 4, 6), "int32"), B: T.Buffer((2, 6, 8), "int32"), C: T.Buffer((2, 4, 8), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for b, i in T.grid(2, 4):
        with T.block("C_j_common"):
            T.reads(A[b, i, 0:6], B[b, 0:6, 0:8])
            T.writes(C[b, i, 0:8])
            with T.block("C_j0_partition"):
                T.reads(A[b, i, 0:6], B[b, 0:6, 0:5])
                T.writes(C[b, i, 0:5])
                for j0, k in T.grid(5, 6):
                    with T.block("C_j0"):
                        v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j0, k])
                        T.reads(A[v_b, v_i, v_k], B[v_b, v_k, v_j])
                        T.writes(C[v_b, v_i, v_j])
                        with T.init():
                            C[v_b, v_i, v_j] = 0
                        C[v_b, v_i, v_j] = C[v_b, v_i, v_j] + A[v_b, v_i, v_k] * B[v_b, v_k, v_j]
            with T.block("C_j1_partition"):
                T.reads(A[b, i, 0:6], B[b, 0:6, 5:8])
                T.writes(C[b, i, 5:8])
                for j1 in range(5, 8):
                    with T.block("C_j1_o"):
                        v_b_o, v_i_o, v_j_o = T.axis.remap("SSS", [b, i, j1])
                        v_k_o = T.axis.reduce(1, 0)
                        T.reads(A[v_b_o, v_i_o, 0:6], B[v_b_o, 0:6, v_j_o])
                        T.writes(C[v_b_o, v_i_o, v_j_o])
                        with T.init():
                            with T.block("C_j1_init"):
                                T.reads()
                                T.writes(C[v_b_o, v_i_o, v_j_o])
                                C[v_b_o, v_i_o, v_j_o] = 0
                        for k in range(6):
                            with T.block("C_j1"):
                                v_k_i = T.axis.reduce(6, k)
                                T.reads(C[v_b_o, v_i_o, v_j_o], A[v_b_o, v_i_o, v_k_i], B[v_b_o, v_k_i, v_j_o])
                                T.writes(C[v_b_o, v_i_o, v_j_o])
                                C[v_b_o, v_i_o, v_j_o] = C[v_b_o, v_i_o, v_j_o] + A[v_b_o, v_i_o, v_k_i] * B[v_b_o, v_k_i, v_j_o]
