# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 5), "float32"), B: T.Buffer((5, 6), "float32"), C: T.Buffer((8, 6), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, j_0, i_1 in T.grid(2, 2, 4):
        for j_1, k in T.grid(T.min(3, 5 - j_0 * 4) + 1, 5):
            with T.block("C"):
                v_i = T.axis.spatial(8, i_0 * 4 + i_1)
                v_j = T.axis.spatial(6, j_0 * 4 + j_1)
                v_k = T.axis.reduce(5, k)
                T.reads(A[v_i, v_k], B[v_k, v_j])
                T.writes(C[v_i, v_j])
                with T.init():
                    C[v_i, v_j] = T.float32(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
