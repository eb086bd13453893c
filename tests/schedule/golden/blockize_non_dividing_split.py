# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((2, 4, 6), "int32"), B: T.Buffer((2, 6, 8), "int32"), C: T.Buffer((2, 4, 8), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    with T.block("C_o"):
        v_b_o = T.axis.spatial(1, 0)
        v_i_o = T.axis.spatial(1, 0)
        v_j_o = T.axis.spatial(1, 0)
        v_k_o = T.axis.reduce(1, 0)
        T.reads(A[0:2, 0:4, 0:6], B[0:2, 0:6, 0:8])
        T.writes(C[0:2, 0:4, 0:8])
        with T.init():
            for b, i, j in T.grid(2, 4, 8):
                with T.block("C_init"):
                    v_b_i_init, v_i_i_init, v_j_i_init = T.axis.remap("SSS", [b, i, j])
                    T.reads()
                    T.writes(C[v_b_i_init, v_i_i_init, v_j_i_init])
                    C[v_b_i_init, v_i_i_init, v_j_i_init] = 0
        for b, i, j, k_0, k_1 in T.grid(2, 4, 8, 2, 4):
            with T.block("C"):
                v_b_i, v_i_i, v_j_i = T.axis.remap("SSS", [b, i, j])
                v_k_i = T.axis.reduce(6, k_0 * 4 + k_1)
                T.where(k_0 * 4 + k_1 < 6)
                T.reads(C[v_b_i, v_i_i, v_j_i], A[v_b_i, v_i_i, v_k_i], B[v_b_i, v_k_i, v_j_i])
                T.writes(C[v_b_i, v_i_i, v_j_i])
                C[v_b_i, v_i_i, v_j_i] = C[v_b_i, v_i_i, v_j_i] + A[v_b_i, v_i_i, v_k_i] * B[v_b_i, v_k_i, v_j_i]
