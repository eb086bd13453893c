# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((64, 64))
    for i_0, j_0 in T.grid(8, 4):
        with T.block("B_o"):
            v_i_o, v_j_o = T.axis.remap("SS", [i_0, j_0])
            T.reads(A[v_i_o * 8:v_i_o * 8 + 8, v_j_o * 16:v_j_o * 16 + 16])
            T.writes(B[v_i_o * 8:v_i_o * 8 + 8, v_j_o * 16:v_j_o * 16 + 16])
            for i_1, j_1 in T.grid(8, 16):
                with T.block("B"):
                    v_i_i, v_j_i = T.axis.remap("SS", [i_1, j_1])
                    T.reads(A[v_i_o * 8 + v_i_i, v_j_o * 16 + v_j_i])
                    T.writes(B[v_i_o * 8 + v_i_i, v_j_o * 16 + v_j_i])
                    B[v_i_o * 8 + v_i_i, v_j_o * 16 + v_j_i] = A[v_i_o * 8 + v_i_i, v_j_o * 16 + v_j_i] * T.float32(2)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(B[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = B[v_i, v_j] + T.float32(1)
