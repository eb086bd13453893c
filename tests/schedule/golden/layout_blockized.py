# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((4, 64, 16))
    for i_0 in range(4):
        with T.block("B_o"):
            v_i_o = T.axis.spatial(4, i_0)
            v_j_o = T.axis.spatial(1, 0)
            T.reads(A[v_i_o * 16:v_i_o * 16 + 16, 0:64])
            T.writes(B[v_i_o, 0:64, 0:16])
            for i_1, j in T.grid(16, 64):
                with T.block("B"):
                    v_i_i, v_j_i = T.axis.remap("SS", [i_1, j])
                    T.reads(A[v_i_o * 16 + v_i_i, v_j_i])
                    T.writes(B[v_i_o, v_j_i, v_i_i])
                    B[v_i_o, v_j_i, v_i_i] = A[v_i_o * 16 + v_i_i, v_j_i] * T.float32(2)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(B[v_i // 16, v_j, v_i % 16])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = B[v_i // 16, v_j, v_i % 16] + T.float32(1)
