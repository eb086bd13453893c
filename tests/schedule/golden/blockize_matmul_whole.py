# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), B: T.Buffer((48, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    with T.block("C_o"):
        v_i_o = T.axis.spatial(1, 0)
        v_j_o = T.axis.spatial(1, 0)
        v_k_o = T.axis.reduce(1, 0)
        T.reads(A[0:64, 0:48], B[0:48, 0:32])
        T.writes(C[0:64, 0:32])
        with T.init():
            for i, j in T.grid(64, 32):
                with T.block("C_init"):
                    v_i_i_init, v_j_i_init = T.axis.remap("SS", [i, j])
                    T.reads()
                    T.writes(C[v_i_i_init, v_j_i_init])
                    C[v_i_i_init, v_j_i_init] = T.float32(0)
        for i, j, k in T.grid(64, 32, 48):
            with T.block("C"):
                v_i_i, v_j_i, v_k_i = T.axis.remap("SSR", [i, j, k])
                T.reads(C[v_i_i, v_j_i], A[v_i_i, v_k_i], B[v_k_i, v_j_i])
                T.writes(C[v_i_i, v_j_i])
                C[v_i_i, v_j_i] = C[v_i_i, v_j_i] + A[v_i_i, v_k_i] * B[v_k_i, v_j_i]
