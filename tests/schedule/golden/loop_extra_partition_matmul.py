# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), B: T.Buffer((48, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in T.parallel(64):
        with T.block("C_j_common"):
            T.reads(A[i, 0:48], B[0:48, 0:32])
            T.writes(C[i, 0:32])
            with T.block("C_j0_partition"):
                T.reads(A[i, 0:48], B[0:48, 0:20])
                T.writes(C[i, 0:20])
                for j0_0, j0_1, k in T.grid(5, 4, 48):
                    with T.block("C_j0"):
                        v_i = T.axis.spatial(64, i)
                        v_j = T.axis.spatial(20, j0_0 * 4 + j0_1)
                        v_k = T.axis.reduce(48, k)
                        T.reads(A[v_i, v_k], B[v_k, v_j])
                        T.writes(C[v_i, v_j])
                        with T.init():
                            C[v_i, v_j] = T.float32(0)
                        C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
            with T.block("C_j1_partition"):
                T.reads(A[i, 0:48], B[0:48, 20:32])
                T.writes(C[i, 20:32])
                for j1 in range(20, 32):
                    for k in range(48):
                        with T.block("C_j1"):
                            v_i, v_j, v_k = T.axis.remap("SSR", [i, j1, k])
                            T.reads(A[v_i, v_k], B[v_k, v_j])
                            T.writes(C[v_i, v_j])
                            with T.init():
                                C[v_i, v_j] = T.float32(0)
                            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
