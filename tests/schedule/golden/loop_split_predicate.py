# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), B: T.Buffer((48, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j, k_0, k_1 in T.grid(64, 32, 10, 5):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            v_k = T.axis.reduce(48, k_0 * 5 + k_1)
            T.where(k_0 * 5 + k_1 < 48)
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
