# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), B: T.Buffer((48, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0 in range(4):
        with T.block("C_o"):
            v_i_o = T.axis.spatial(4, i_0)
            v_j_o = T.axis.spatial(1, 0)
            v_k_o = T.axis.reduce(1, 0)
            T.reads(A[v_i_o * 16:v_i_o * 16 + 16, 0:48], B[0:48, 0:32])
            T.writes(C[v_i_o * 16:v_i_o * 16 + 16, 0:32])
            with T.init():
                for i_1, j in T.grid(16, 32):
                    with T.block("C_init"):
                        v_i_i_init, v_j_i_init = T.axis.remap("SS", [i_1, j])
                        T.reads()
                        T.writes(C[v_i_o * 16 + v_i_i_init, v_j_i_init])
                        C[v_i_o * 16 + v_i_i_init, v_j_i_init] = T.float32(0)
            for i_1, j, k in T.grid(16, 32, 48):
                with T.block("C"):
                    v_i_i, v_j_i, v_k_i = T.axis.remap("SSR", [i_1, j, k])
                    T.reads(C[v_i_o * 16 + v_i_i, v_j_i], A[v_i_o * 16 + v_i_i, v_k_i], B[v_k_i, v_j_i])
                    T.writes(C[v_i_o * 16 + v_i_i, v_j_i])
                    C[v_i_o * 16 + v_i_i, v_j_i] = C[v_i_o * 16 + v_i_i, v_j_i] + A[v_i_o * 16 + v_i_i, v_k_i] * B[v_k_i, v_j_i]
