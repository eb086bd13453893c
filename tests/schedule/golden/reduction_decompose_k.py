# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), B: T.Buffer((48, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j_0 in T.grid(64, 4):
        for j_1_init in range(8):
            with T.block("C_init"):
                v_i = T.axis.spatial(64, i)
                v_j = T.axis.spatial(32, j_0 * 8 + j_1_init)
                T.reads()
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = T.float32(0)
        for k, j_1 in T.grid(48, 8):
            with T.block("C_update"):
                v_i = T.axis.spatial(64, i)
                v_j = T.axis.spatial(32, j_0 * 8 + j_1)
                v_k = T.axis.reduce(48, k)
                T.reads(C[v_i, v_j], A[v_i, v_k], B[v_k, v_j])
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
