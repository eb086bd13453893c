# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((64, 64))
    for i_0 in range(7):
        for ax0, ax1 in T.grid(10, 64):
            with T.block("B"):
                v_i = T.axis.spatial(64, i_0 * 10 + ax0)
                v_j = T.axis.spatial(64, ax1)
                T.where(i_0 * 10 + ax0 < 64)
                T.reads(A[v_i, v_j])
                T.writes(B[v_i, v_j])
                B[v_i, v_j] = A[v_i, v_j] * T.float32(2)
        for i_1, j in T.grid(10, 64):
            with T.block("C"):
                v_i = T.axis.spatial(64, i_0 * 10 + i_1)
                v_j = T.axis.spatial(64, j)
                T.where(i_0 * 10 + i_1 < 64)
                T.reads(B[v_i, v_j])
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = B[v_i, v_j] + T.float32(1)
