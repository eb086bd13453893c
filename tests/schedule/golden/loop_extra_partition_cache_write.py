# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 12), "int32"), B: T.Buffer((12, 16), "int32"), C: T.Buffer((8, 16), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(8):
        with T.block("C_j_common"):
            T.reads(A[i, 0:12], B[0:12, 0:16])
            T.writes(C[i, 0:16])
            with T.block("C_j0_partition"):
                T.reads(A[i, 0:12], B[0:12, 0:13])
                T.writes(C[i, 0:13])
                C_shared = T.alloc_buffer((1, 13), "int32", scope="shared")
                for j0, k in T.grid(13, 12):
                    with T.block("C_j0"):
                        v_i, v_j, v_k = T.axis.remap("SSR", [i, j0, k])
                        T.reads(A[v_i, v_k], B[v_k, v_j])
                        T.writes(C_shared[v_i - i, v_j])
                        with T.init():
                            C_shared[v_i - i, v_j] = 0
                        C_shared[v_i - i, v_j] = C_shared[v_i - i, v_j] + A[v_i, v_k] * B[v_k, v_j]
                for ax0, ax1 in T.grid(1, 13):
                    with T.block("C_shared"):
                        v0, v1 = T.axis.remap("SS", [ax0, ax1])
                        T.reads(C_shared[v0, v1])
                        T.writes(C[i + v0, v1])
                        C[i + v0, v1] = C_shared[v0, v1]
            with T.block("C_j1_partition"):
                T.reads(A[i, 0:12], B[0:12, 13:16])
                T.writes(C[i, 13:16])
                for j1 in range(13, 16):
                    for k in range(12):
                        with T.block("C_j1"):
                            v_i, v_j, v_k = T.axis.remap("SSR", [i, j1, k])
                            T.reads(A[v_i, v_k], B[v_k, v_j])
                            T.writes(C[v_i, v_j])
                            with T.init():
                                C[v_i, v_j] = 0
                            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
