# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), B: T.Buffer((48, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_init, j_init in T.grid(64, 32):
        with T.block("C_init"):
            v_i, v_j = T.axis.remap("SS", [i_init, j_init])
            T.reads()
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = T.float32(0)
    for i, j, k in T.grid(64, 32, 48):
        with T.block("C_update"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(C[v_i, v_j], A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
