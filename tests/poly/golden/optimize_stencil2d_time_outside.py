# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), jacobi: T.Buffer((4, 16, 16), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0 in T.parallel(2):
        for i_1_0 in range(8):
            for j_1_1 in T.vectorized(16):
                with T.block("jacobi_init"):
                    v__ = T.axis.spatial(1, 0)
                    v_i = T.axis.spatial(16, i_0 * 8 + i_1_0)
                    v_j = T.axis.spatial(16, j_1_1)
                    T.reads(A[v_i, v_j])
                    T.writes(jacobi[v__, v_i, v_j])
                    jacobi[v__, v_i, v_j] = A[v_i, v_j]
    for t in range(1, 4):
        for i_0 in T.parallel(2):
            for i_1, j_1 in T.grid(8, 16):
                with T.block("jacobi_update"):
                    v_t = T.axis.spatial((1, 4), t)
                    v_i = T.axis.spatial(16, i_0 * 8 + i_1)
                    v_j = T.axis.spatial(16, j_1)
                    T.reads(jacobi[v_t - 1, v_i - 1:v_i - 1 + 3, v_j - 1:v_j - 1 + 3])
                    T.writes(jacobi[v_t, v_i, v_j])
                    jacobi[v_t, v_i, v_j] = T.if_then_else(0 < v_i and v_i < 15 and 0 < v_j and v_j < 15, T.float32(0.2) * (jacobi[v_t - 1, v_i, v_j] + jacobi[v_t - 1, v_i - 1, v_j] + jacobi[v_t - 1, v_i + 1, v_j] + jacobi[v_t - 1, v_i, v_j - 1] + jacobi[v_t - 1, v_i, v_j + 1]), jacobi[v_t - 1, v_i, v_j])
