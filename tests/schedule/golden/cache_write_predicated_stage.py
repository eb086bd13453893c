# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((3, 6), "int32"), C: T.Buffer((3, 6), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((3, 6), "int32")
    B_local = T.alloc_buffer((3, 6), "int32", scope="local")
    for i_0, i_1 in T.grid(2, 2):
        for ax0 in range(6):
            with T.block("B"):
                v_i = T.axis.spatial(3, i_0 * 2 + i_1)
                v_j = T.axis.spatial(6, ax0)
                T.where(i_0 * 2 + i_1 < 3)
                T.reads(A[v_i, v_j])
                T.writes(B_local[v_i, v_j])
                B_local[v_i, v_j] = A[v_i, v_j] * 2
        for ax0, ax1 in T.grid(1, 6):
            with T.block("B_local"):
                v0 = T.axis.spatial(3, i_0 * 2 + i_1 + ax0)
                v1 = T.axis.spatial(6, ax1)
                T.where(i_0 * 2 + i_1 < 3)
                T.reads(B_local[v0, v1])
                T.writes(B[v0, v1])
                B[v0, v1] = B_local[v0, v1]
        for j in range(6):
            with T.block("C"):
                v_i = T.axis.spatial(3, i_0 * 2 + i_1)
                v_j = T.axis.spatial(6, j)
                T.where(i_0 * 2 + i_1 < 3)
                T.reads(B[v_i, v_j])
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = B[v_i, v_j] + 1
